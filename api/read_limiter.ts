import type { Middleware } from 'koa';
import { AddressLimit } from './address_limit.js';
import { answerBytes, readsCost, requestMeasure, type ReadWeights } from './read_cost.js';

/** Per client address: the read allowance, and (absent: the defaults for its rate) what one read buys. */
export interface ReadLimits extends Partial<ReadWeights> {
  /** Sustained reads per second per client address. */
  reads_per_second: number;
  /** How many reads a client may make at once before the rate applies. */
  burst_reads: number;
}

export interface NonceLimits {
  /** Sustained nonce requests per second per client address. */
  nonces_per_second: number;
  /** How many nonces a client may ask for at once before the rate applies. */
  burst_nonces: number;
}

/**
 * A token bucket per client address for public reads: one per app, shared by every path
 * that answers reads (the Koa middleware below and the log's tile fast path), so a client
 * gets no more reads by mixing them. Past the burst, 429 RATE_LIMITED with Retry-After.
 * Signed writes have their own limits in the engine.
 */
export function readLimit(limits: ReadLimits, clock: () => number): AddressLimit {
  return new AddressLimit(
    { tokens_per_second: limits.reads_per_second, burst: limits.burst_reads },
    `At most ${limits.reads_per_second} reads a second per client (bursts of ${limits.burst_reads}).`,
    clock,
  );
}

/**
 * Which requests spend a read: GET and HEAD, and POST /mcp (whose read tools answer
 * in-process); /healthz and /api/v1/nonce are exempt (the nonce route has its own limit,
 * nonceLimit).
 */
export function isLimitedRead(method: string, path: string): boolean {
  const read = method === 'GET' || method === 'HEAD' || (method === 'POST' && path === '/mcp');
  return read && path !== '/healthz' && path !== '/api/v1/nonce';
}

/**
 * The read limit for every request through Koa: one read up front, then what the read
 * turned out to cost past it (read_cost.ts), its CPU and its answer's bytes. POST /mcp
 * charges its calls itself (mcp_endpoint.ts).
 */
export function readLimiter(limit: AddressLimit, weights: ReadWeights, charges_itself: string): Middleware {
  return async (ctx, next) => {
    if (!isLimitedRead(ctx.method, ctx.path)) return next();
    limit.checkRequest(ctx);
    if (ctx.path === charges_itself) return next();
    const cpuMs = requestMeasure(ctx.req);
    await next();
    const bytes = answerBytes(ctx);
    const cost = readsCost(weights, cpuMs(), bytes);
    if (cost > 1) {
      limit.charge(ctx.ip, cost - 1);
      ctx.set(limit.lastHeaders());
    }
  };
}

/**
 * The nonce route's own limit per client address. Issuing a nonce costs no memory
 * (see NonceBook), so this only keeps one client from spending the server's CPU on
 * them; an agent acting in a loop needs few, as each signed answer carries the next.
 */
export function nonceLimit(limits: NonceLimits, clock: () => number): AddressLimit {
  return new AddressLimit(
    { tokens_per_second: limits.nonces_per_second, burst: limits.burst_nonces },
    `At most ${limits.nonces_per_second} nonces a second per client (bursts of ${limits.burst_nonces}); sign your next request with the X-Next-Nonce of the last answer instead.`,
    clock,
  );
}

/** What every HTML page is allowed to load: its own script and style, nothing inline, nothing framed. */
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'none'";

/**
 * The grant page's policy: the one page with a form, so the one that may submit one, and
 * only to this site. Every other page keeps form-action 'none'.
 */
export const GRANT_PAGE_CSP = CONTENT_SECURITY_POLICY.replace("form-action 'none'", "form-action 'self'");

/**
 * The ledger page's policy: its search box is a GET form to /ledger itself, so it may
 * submit a form, only to this site, as the grant page may. Its Markdown twin and every
 * other page keep form-action 'none'.
 */
export const LEDGER_PAGE_CSP = GRANT_PAGE_CSP;

/** The HTML pages whose policy is their own, by path (the catalogue's pages are mounted without per-page headers). */
const PAGE_POLICIES: ReadonlyMap<string, string> = new Map([['/ledger', LEDGER_PAGE_CSP]]);

const SECURITY_HEADERS: Readonly<Record<string, string>> = Object.freeze({
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
});
const HTML_SECURITY_HEADERS = Object.freeze({
  ...SECURITY_HEADERS,
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
});

/** The headers every answer carries, given its Content-Type: an HTML page adds its policy. Shared, never copied. */
export function securityHeadersFor(content_type: string): Readonly<Record<string, string>> {
  // A prefix test, not a media-type parse: this runs on every answer.
  return content_type.startsWith('text/html') ? HTML_SECURITY_HEADERS : SECURITY_HEADERS;
}

export function securityHeaders(): Middleware {
  return async (ctx, next) => {
    await next();
    // A route may set its own policy (the grant page, GRANT_PAGE_CSP), or its page has one (the ledger,
    // LEDGER_PAGE_CSP); every other HTML answer gets the shared one.
    const content_type = String(ctx.response.get('Content-Type'));
    const page_policy = content_type.startsWith('text/html') ? PAGE_POLICIES.get(ctx.path) : undefined;
    const own_policy = ctx.response.get('Content-Security-Policy') || page_policy;
    ctx.set(securityHeadersFor(content_type));
    if (own_policy) ctx.set('Content-Security-Policy', own_policy);
  };
}
