import type { Routes } from './routes.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { toolServer } from '../client/mcp_server.js';
import { TesseraClient } from '../client/sdk.js';
import { buildTools } from '../client/tools.js';
import { readToolsForRules } from './read_tools.js';

export const MCP_PATH = '/mcp';

/**
 * The service's own MCP endpoint (Streamable HTTP, stateless): the read tools only,
 * since the tools that change state are signed where the key lives (the agent's
 * `tessera-agent mcp`). Each read tool is answered by the service's own public route.
 */
export function mountMcpEndpoint(router: Routes, self_url: () => string): void {
  router.post(MCP_PATH, async (ctx) => {
    const tools = buildTools({ acts: [], read_tools: readToolsForRules() }, new TesseraClient(self_url()), { signed: false });
    const server = toolServer(tools);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    ctx.respond = false;
    ctx.res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await transport.handleRequest(ctx.req, ctx.res, ctx.request.body);
  });
}
