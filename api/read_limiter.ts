import type { Middleware } from 'koa';
import { RefusalError } from './refusal_error.js';

export interface ReadLimits {
  /** Sustained reads per second per client address. */
  reads_per_second: number;
  /** How many reads a client may make at once before the rate applies. */
  burst_reads: number;
}

interface Bucket {
  tokens: number;
  at_ms: number;
}

const clients_tracked_max = 100_000;

/**
 * A token bucket per client address for public reads (GET and HEAD); /healthz and /api/v1/nonce are
 * exempt. Past the burst, 429 RATE_LIMITED with Retry-After. Signed writes have their
 * own limits in the engine.
 */
export function readLimiter(limits: ReadLimits, clock: () => number): Middleware {
  const buckets = new Map<string, Bucket>();
  return async (ctx, next) => {
    // /api/v1/nonce is bounded by the nonce book itself, and every signed write needs one.
    if ((ctx.method !== 'GET' && ctx.method !== 'HEAD') || ctx.path === '/healthz' || ctx.path === '/api/v1/nonce') return next();
    const now = clock();
    let bucket = buckets.get(ctx.ip);
    if (!bucket) {
      if (buckets.size >= clients_tracked_max) buckets.delete(buckets.keys().next().value!);
      bucket = { tokens: limits.burst_reads, at_ms: now };
      buckets.set(ctx.ip, bucket);
    }
    bucket.tokens = Math.min(limits.burst_reads, bucket.tokens + ((now - bucket.at_ms) / 1000) * limits.reads_per_second);
    bucket.at_ms = now;
    if (bucket.tokens < 1) {
      const retry_after_seconds = Math.max(1, Math.ceil((1 - bucket.tokens) / limits.reads_per_second));
      throw RefusalError.of('RATE_LIMITED', `At most ${limits.reads_per_second} reads a second per client (bursts of ${limits.burst_reads}).`, { retry_after_seconds });
    }
    bucket.tokens -= 1;
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
