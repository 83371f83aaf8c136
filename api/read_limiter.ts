import type { Middleware } from 'koa';
import { RefusalError } from './refusal_error.js';
import { TokenBuckets } from './token_buckets.js';

export interface ReadLimits {
  /** Sustained reads per second per client address. */
  reads_per_second: number;
  /** How many reads a client may make at once before the rate applies. */
  burst_reads: number;
}

/**
 * A token bucket per client address for public reads (GET and HEAD); /healthz and /api/v1/nonce are
 * exempt. Past the burst, 429 RATE_LIMITED with Retry-After. Signed writes have their
 * own limits in the engine.
 */
export function readLimiter(limits: ReadLimits, clock: () => number): Middleware {
  const buckets = new TokenBuckets({ tokens_per_second: limits.reads_per_second, burst: limits.burst_reads }, clock);
  return async (ctx, next) => {
    // /api/v1/nonce is bounded by the nonce book itself, and every signed write needs one.
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.path === '/healthz' || ctx.path === '/api/v1/nonce') return next();
    const taken = buckets.take(ctx.ip);
    if (!taken.granted) {
      throw RefusalError.of('RATE_LIMITED', `At most ${limits.reads_per_second} reads a second per client (bursts of ${limits.burst_reads}).`, { retry_after_seconds: taken.retry_after_seconds });
    }
    await next();
  };
}

/** What every HTML page is allowed to load: its own script and style, nothing inline, nothing framed. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

export function securityHeaders(): Middleware {
  return async (ctx, next) => {
    await next();
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Referrer-Policy', 'no-referrer');
    // A prefix test, not a media-type parse: this runs on every answer.
    if (String(ctx.response.get('Content-Type')).startsWith('text/html')) ctx.set('Content-Security-Policy', CONTENT_SECURITY_POLICY);
  };
}
