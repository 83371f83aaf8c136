import type { Context } from 'koa';
import type { Routes } from './routes.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { toolServer } from '../client/mcp_server.js';
import { TesseraClient, TesseraError } from '../client/sdk.js';
import { BRIDGE_STREAM_TOOLS } from '../client/mcp_events.js';
import type { ToolRefusal } from '../client/tool_refusal.js';
import { buildTools, SIGNED_EXTRA_TOOLS, type Tool } from '../client/tools.js';
import type { AddressLimit } from './address_limit.js';
import { beginCpuMeasure, readsCost, type ReadWeights } from './read_cost.js';
import { answerRead, parseToolArgs } from './read_mount.js';
import { READ_TOOLS, readToolsForRules } from './read_tools.js';
import { RefusalError, ValidationError, refusalBody } from './refusal_error.js';
import { CATALOGUE, type ReadContext, REFUSALS, refuse } from '../engine/index.js';

export const MCP_PATH = '/mcp';

/**
 * What one POST /mcp may ask for. A batch is a list of calls in one request: each call is
 * charged as the read it is, and the batch as their sum; these bound what one request
 * holds in memory whatever the client's allowance.
 */
export interface McpLimits {
  /** JSON-RPC messages in one request; more is refused whole. */
  batch_calls_max: number;
  /** The answers of one request together; a call past it is refused BATCH_TOO_LARGE, the earlier ones answered. */
  batch_answer_bytes_max: number;
}

export const MCP_LIMITS: Readonly<McpLimits> = Object.freeze({
  batch_calls_max: 16,
  batch_answer_bytes_max: 4 * 1024 * 1024,
});

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
        throw asToolError(error);
      }
    };
    return { ...tool, call };
  });
}

function asToolError(error: unknown): unknown {
  if (error instanceof RefusalError)
    return new TesseraError(REFUSALS[error.refusal.code].status, error.refusal.code, refusalBody(error.refusal));
  if (error instanceof ValidationError) return new TesseraError(422, 'VALIDATION_FAILED', { detail: error.detail });
  return error;
}

/** The tools the agent's stdio bridge offers and this endpoint cannot: the signed ones, and those that follow the event stream. */
const BRIDGE_ONLY_TOOLS: ReadonlySet<string> = new Set([
  ...CATALOGUE.filter((act) => act.via_act).map((act) => act.name),
  ...SIGNED_EXTRA_TOOLS,
  ...BRIDGE_STREAM_TOOLS,
]);

/**
 * The answer to a tool this endpoint does not serve. A bridge tool called here is pointed
 * at the bridge: an act is signed with the agent's own key, which never reaches this
 * service, so it cannot be called on a keyless endpoint.
 */
export function absentToolRefusal(name: string, public_url: string | undefined): ToolRefusal {
  if (!BRIDGE_ONLY_TOOLS.has(name))
    return {
      error: 'UNKNOWN_TOOL',
      message: `There is no tool named '${name}'; tools/list names the read tools served here.`,
    };
  const docs = `${public_url ?? ''}/for-agents`;
  const service = public_url ?? "<this service's address>";
  return {
    error: 'BRIDGE_ONLY',
    message:
      `'${name}' is not served by POST /mcp, which offers the read tools only. ` +
      'Acts are signed with your own key, so they go through your stdio bridge (tessera-agent mcp), ' +
      'or POST /api/v1/act signed by hand; the event-stream tools follow GET /api/v1/events, which only the bridge keeps open.',
    hint: `Run tessera-agent mcp --key <your key file> --url ${service} as your MCP server, then call '${name}' there; ${docs} shows how.`,
    docs,
  };
}

export interface McpEndpointDeps {
  contextOf: () => ReadContext;
  /** This service's public address, for the links of a refusal; relative links without it. */
  public_url?: string;
  /** The app's read limit, which took one read for this request already (read_limiter.ts). */
  read_limit: AddressLimit;
  read_weights: ReadWeights;
  limits?: Readonly<McpLimits>;
}

/** One request's calls: what they have answered so far, and what they cost. */
class BatchBill {
  answer_bytes = 0;
  cost = 0;
  /** The calls of a batch arrive at once; each runs after the one before, so each sees what the earlier ones answered. */
  private previous: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly weights: ReadWeights,
    private readonly limits: Readonly<McpLimits>,
  ) {}

  /** The tools with each call measured and bounded by this batch's answer bytes. */
  metered(tools: Tool[]): Tool[] {
    return tools.map((tool) => ({
      ...tool,
      call: (args: Record<string, unknown>) => {
        const turn = this.previous.then(() => this.call(tool, args));
        this.previous = turn.catch(() => undefined);
        return turn;
      },
    }));
  }

  private async call(tool: Tool, args: Record<string, unknown>): Promise<unknown> {
    // Other requests are answered between two calls of a batch: a batch delays them by one call, not by all of them.
    await new Promise((resolve) => setImmediate(resolve));
    if (this.answer_bytes >= this.limits.batch_answer_bytes_max) {
      const refusal = refuse(
        'BATCH_TOO_LARGE',
        `This batch's answers reached ${this.limits.batch_answer_bytes_max} bytes; send this call in another request.`,
        { batch_answer_bytes_max: this.limits.batch_answer_bytes_max },
      );
      throw asToolError(new RefusalError(refusal));
    }
    const cpuMs = beginCpuMeasure();
    const answer = await tool.call(args);
    const bytes = Buffer.byteLength(JSON.stringify(answer) ?? '');
    this.answer_bytes += bytes;
    this.cost += readsCost(this.weights, cpuMs(), bytes);
    return answer;
  }
}

/**
 * The service's own MCP endpoint (Streamable HTTP, stateless): the read tools only,
 * since the tools that change state are signed where the key lives (the agent's
 * `tessera-agent mcp`). A batch is refused whole past batch_calls_max messages, or
 * when the client's allowance does not hold one read for each of them; once answered,
 * it is charged what its calls cost.
 */
export function mountMcpEndpoint(router: Routes, deps: McpEndpointDeps): void {
  const tools = inProcessReadTools(deps.contextOf);
  const limits = deps.limits ?? MCP_LIMITS;
  router.post(MCP_PATH, async (ctx) => {
    const body: unknown = ctx.request.body;
    const messages = Array.isArray(body) ? body.length : 1;
    if (messages > limits.batch_calls_max) {
      deps.read_limit.refund(ctx.ip, 1);
      return refuseBatch(ctx, 413, {
        code: -32600,
        message: `A batch holds at most ${limits.batch_calls_max} messages; this one holds ${messages}. Send the rest in another request.`,
        data: { error: 'BATCH_TOO_LARGE', batch_calls_max: limits.batch_calls_max },
      });
    }
    // The middleware took one read; a batch pays one for each of its messages before any is answered.
    const upfront = deps.read_limit.take(ctx.ip, messages - 1);
    ctx.set(deps.read_limit.lastHeaders());
    if (!upfront.granted) {
      deps.read_limit.refund(ctx.ip, 1);
      ctx.set('Retry-After', String(upfront.retry_after_seconds));
      return refuseBatch(ctx, 429, {
        code: -32000,
        message: `This batch of ${messages} calls costs at least ${messages} reads, more than this client has left; try again after ${upfront.retry_after_seconds} s or send fewer calls.`,
        data: { error: 'RATE_LIMITED', retry_after_seconds: upfront.retry_after_seconds },
      });
    }
    const bill = new BatchBill(deps.read_weights, limits);
    const server = toolServer(bill.metered(tools), {
      absentTool: (name) => absentToolRefusal(name, deps.public_url),
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await server.connect(transport);
    ctx.respond = false;
    ctx.res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await transport.handleRequest(ctx.req, ctx.res, body);
    deps.read_limit.charge(ctx.ip, bill.cost - messages);
  });
}

/** A refused batch: one JSON-RPC error, nothing answered. */
function refuseBatch(ctx: Context, status: number, error: { code: number; message: string; data: object }): void {
  ctx.status = status;
  ctx.body = { jsonrpc: '2.0', id: null, error };
}
