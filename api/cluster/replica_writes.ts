import type { Middleware } from 'koa';
import { refuse } from '../../engine/index.js';
import { RefusalError } from '../refusal_error.js';

export interface WriterDirectory {
  /** Whether this node writes now. */
  leading(): boolean;
  /** Whether a write would be taken now: this node leads and reached NATS lately. */
  writable(): boolean;
  /** The writer's URL, when another node holds the lease. */
  leader_url(): string | undefined;
  /** How long a write waits for its outcome before it is answered 503 OUTCOME_PENDING (api/act_routes.ts). */
  readonly answer_deadline_ms: number;
}

/**
 * What a read replica does with a request only the writer can answer: every method but
 * GET, HEAD and OPTIONS (acts, registration, payments, operator and grant posts), and
 * nonces, which only the writer's nonce book can check later. POST /mcp is answered
 * here: its tools are reads. They are redirected to the writer with 307, which keeps
 * the method and the body: a signature covers the method, path, agent, nonce and body,
 * never the host, so the signed request is good at the writer as it is. With no writer
 * known (a failover under way), 503 NOT_LEADER with Retry-After.
 */
export function replicaWrites(directory: WriterDirectory): Middleware {
  return async (ctx, next) => {
    if (!writerOnly(ctx.method, ctx.path)) return next();
    if (directory.leading()) {
      if (directory.writable() || ctx.path === '/api/v1/nonce') return next();
      throw notLeader();
    }
    const url = directory.leader_url();
    if (url) {
      // The writer's origin with this request's path and query: a path like //elsewhere.example stays a path there.
      const target = new URL(url);
      target.pathname = ctx.path;
      target.search = ctx.querystring;
      const location = target.href;
      ctx.status = 307;
      ctx.set('Location', location);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { redirect: 'this node is a read replica; the writer answers this request', location };
      return;
    }
    throw notLeader();
  };
}

function notLeader(): RefusalError {
  return new RefusalError(refuse('NOT_LEADER', undefined, { retry_after_seconds: 1 }), { 'Retry-After': '1' });
}

function writerOnly(method: string, path: string): boolean {
  if (method === 'GET' || method === 'HEAD') return path === '/api/v1/nonce';
  if (method === 'OPTIONS') return false;
  return !(method === 'POST' && path === '/mcp');
}
