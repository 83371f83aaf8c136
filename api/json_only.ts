import type { Middleware } from 'koa';
import { refuseEncodedBody } from './body_encoding.js';
import { RefusalError } from './refusal_error.js';

/**
 * A POST with a body must say it is JSON; otherwise the body parser would skip it
 * and the request would fail later with a confusing "field required". It must not be
 * compressed either: the parser would inflate it, and corrupt bytes would fail there.
 */
export function requireJsonBodies(): Middleware {
  return async (ctx, next) => {
    refuseEncodedBody(ctx);
    const length = ctx.method === 'POST' ? ctx.request.length : 0;
    if (length !== 0 && (length || ctx.get('transfer-encoding'))) {
      if (!ctx.is('application/json')) throw RefusalError.of('UNSUPPORTED_MEDIA_TYPE');
    }
    await next();
  };
}
