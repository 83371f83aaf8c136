import type { Context, Middleware } from 'koa';
import { wayOnPage } from '../render/layout.js';
import { bareFrame } from './pages/frame.js';
import { REFUSALS } from '../engine/index.js';
import { RefusalError, ValidationError, refusalBody } from './refusal_error.js';

export interface ErrorReporter {
  (error: unknown, where: string): void;
}

/**
 * The one place every failure becomes a response: refusals with their listed
 * status, 422 in the specification's shape, body-parser errors mapped to clear
 * codes, and anything else (a bug) to a bare INTERNAL that reveals nothing. A person's
 * browser asking for a path nothing serves gets a page with ways on rather than JSON.
 */
export function errorsMiddleware(report: ErrorReporter): Middleware {
  return async (ctx, next) => {
    try {
      await next();
    } catch (error) {
      if (error instanceof RefusalError && error.refusal.code === 'NOT_FOUND' && unroutedPageAsked(ctx)) {
        ctx.status = 404;
        ctx.type = 'text/html; charset=utf-8';
        ctx.body = wayOnPage(bareFrame('Not found'), [`There is no page at ${ctx.path}.`]);
        return;
      }
      if (error instanceof RefusalError) {
        ctx.status = REFUSALS[error.refusal.code].status;
        ctx.set(error.headers);
        const retry_after = error.refusal.details?.retry_after_seconds;
        if (typeof retry_after === 'number') ctx.set('Retry-After', String(retry_after));
        ctx.body = refusalBody(error.refusal);
        return;
      }
      if (error instanceof ValidationError) {
        ctx.status = 422;
        ctx.body = { detail: error.detail };
        return;
      }
      const parser = bodyParserFailure(error);
      if (parser) {
        ctx.status = parser.status;
        ctx.body = parser.body;
        return;
      }
      report(error, `${ctx.method} ${ctx.path}`);
      ctx.status = 500;
      ctx.body = { error: 'INTERNAL', message: REFUSALS.INTERNAL.message };
    }
  };
}

/**
 * A GET no route matched (a route's own 404, an agent or motion not found, stays in its
 * documented JSON) from a client that prefers HTML to JSON: a browser, not an agent.
 */
function unroutedPageAsked(ctx: Context): boolean {
  if (ctx.route_pattern !== undefined || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return false;
  return ctx.accepts('application/json', 'text/html') === 'text/html';
}

/** co-body (under koa-body) throws http-errors with a status and a type. */
function bodyParserFailure(error: unknown): { status: number; body: unknown } | undefined {
  const { status, type } = (error ?? {}) as { status?: number; type?: string };
  if (status === 413 || type === 'entity.too.large') {
    return { status: 413, body: { error: 'PAYLOAD_TOO_LARGE', message: REFUSALS.PAYLOAD_TOO_LARGE.message } };
  }
  if (status === 415 || type === 'charset.unsupported' || type === 'encoding.unsupported') {
    return {
      status: 415,
      body: {
        error: 'UNSUPPORTED_MEDIA_TYPE',
        message: 'Send the body as UTF-8 application/json without content encoding.',
      },
    };
  }
  if (status === 400) {
    const message = error instanceof Error ? error.message : 'malformed body';
    return {
      status: 422,
      body: { detail: [{ loc: ['body'], msg: `Invalid JSON: ${message}`, type: 'json_invalid' }] },
    };
  }
  return undefined;
}
