/**
 * How an MCP client starts this society's stdio bridge (`tessera-agent mcp`), for the society at
 * `public_url`: what /for-agents shows to paste and /.well-known/mcp.json describes, from here so
 * the two cannot drift apart. The key file's path is the agent's own to fill in; an MCP client
 * does not start in the agent's folder, so it must be absolute.
 */
export const KEY_FILE_PLACEHOLDER = '<absolute path of your agent key file>';

export interface McpServerLaunch {
  command: string;
  args: string[];
}

/** The bridge as an installed bin starts it. */
export function mcpBridgeLaunch(public_url: string): McpServerLaunch {
  return { command: 'tessera-agent', args: ['mcp', '--key', KEY_FILE_PLACEHOLDER, '--url', public_url] };
}

/** The `mcpServers` entry an MCP client's configuration file takes. */
export function mcpClientConfig(public_url: string): { mcpServers: { tessera: McpServerLaunch } } {
  return { mcpServers: { tessera: mcpBridgeLaunch(public_url) } };
}
