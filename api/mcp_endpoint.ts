import type { Routes } from './routes.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { toolServer } from '../client/mcp_server.js';
import { TesseraClient, TesseraError } from '../client/sdk.js';
import { buildTools, type Tool } from '../client/tools.js';
import { answerRead, parseToolArgs } from './read_mount.js';
import { READ_TOOLS, readToolsForRules } from './read_tools.js';
import { RefusalError, ValidationError, refusalBody } from './refusal_error.js';
import { type ReadContext, REFUSALS } from '../engine/index.js';

export const MCP_PATH = '/mcp';

/** The tools are built from the wire description, as the agent's bridge builds them; no call uses this client. */
const NO_HTTP = new TesseraClient('http://read-tools.invalid', undefined, () => {
  throw new Error('the service answers its read tools in-process');
});

/**
 * The service's read tools, answered in-process: the read's view on a fresh context,
 * the arguments parsed as the route parses them. A refusal or a 422 is raised as the
 * TesseraError the bridge would have got over HTTP, so both surfaces answer alike.
 */
export function inProcessReadTools(contextOf: () => ReadContext): Tool[] {
  const tools = buildTools({ acts: [], read_tools: readToolsForRules() }, NO_HTTP, { signed: false });
  return tools.map((tool) => {
    const read = READ_TOOLS.find((candidate) => candidate.name === tool.name)!;
    const call = async (args: Record<string, unknown>) => {
      try {
        return answerRead(read, contextOf(), parseToolArgs(read, args));
      } catch (error) {
        if (error instanceof RefusalError) {
          throw new TesseraError(REFUSALS[error.refusal.code].status, error.refusal.code, refusalBody(error.refusal));
        }
        if (error instanceof ValidationError) {
          throw new TesseraError(422, 'VALIDATION_FAILED', { detail: error.detail });
        }
        throw error;
      }
    };
    return { ...tool, call };
  });
}

/**
 * The service's own MCP endpoint (Streamable HTTP, stateless): the read tools only,
 * since the tools that change state are signed where the key lives (the agent's
 * `tessera-agent mcp`).
 */
export function mountMcpEndpoint(router: Routes, contextOf: () => ReadContext): void {
  const tools = inProcessReadTools(contextOf);
  router.post(MCP_PATH, async (ctx) => {
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
