import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { TesseraError } from './sdk.js';
import type { Tool } from './tools.js';

/**
 * An MCP server over a list of tools. A refusal of the society comes back as a tool
 * result with isError and the refusal's code and message, so an agent can read it and
 * act on it; only a broken call (an unknown tool) is a protocol error.
 */
export function toolServer(tools: Tool[]): Server {
  const server = new Server({ name: 'tessera', version: '0.1.0' }, { capabilities: { tools: {} } });
  const by_name = new Map(tools.map((tool) => [tool.name, tool]));
  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: tools.map((tool) => ({ name: tool.name, description: tool.description, inputSchema: tool.inputSchema as { type: 'object' } })),
  }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = by_name.get(request.params.name);
    if (!tool) return { isError: true, content: [{ type: 'text', text: JSON.stringify({ error: 'UNKNOWN_TOOL', message: `There is no tool named '${request.params.name}'.` }) }] };
    try {
      const result = await tool.call((request.params.arguments ?? {}) as Record<string, unknown>);
      return { content: [{ type: 'text', text: JSON.stringify(result) }] };
    } catch (error) {
      const body = error instanceof TesseraError ? { status: error.status, ...(typeof error.body === 'object' && error.body ? error.body : { error: error.code, message: String(error.body) }) } : { error: 'CALL_FAILED', message: error instanceof Error ? error.message : String(error) };
      return { isError: true, content: [{ type: 'text', text: JSON.stringify(body) }] };
    }
  });
  return server;
}

export async function serveOver(tools: Tool[], transport: Transport = new StdioServerTransport()): Promise<Server> {
  const server = toolServer(tools);
  await server.connect(transport);
  return server;
}
