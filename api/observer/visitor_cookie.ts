import { createHmac, randomBytes } from 'node:crypto';

export const VISITOR_COOKIE = 'tessera_visitor';
export const VISITOR_COOKIE_MAX_AGE_MS = 365 * 86_400_000;

/**
 * Visitor ids are drawn from a pool of random bytes filled 4 KiB at a time: one
 * randomBytes call per visitor was a measurable share of a front page answered to new
 * visitors. The bytes are the same CSPRNG's; each id takes 8 of them, never reused.
 */
const ID_BYTES = 8;
const POOL_BYTES = 4096;
let pool = Buffer.alloc(0);
let pool_at = 0;

/** A new anonymous visitor id: `v_` and 16 hex digits (64 random bits). */
export function newVisitorId(): string {
  if (pool_at + ID_BYTES > pool.length) {
    pool = randomBytes(POOL_BYTES);
    pool_at = 0;
  }
  const id = `v_${pool.toString('hex', pool_at, pool_at + ID_BYTES)}`;
  // Spent bytes are zeroed, so no later copy of the pool could hand them out again.
  pool.fill(0, pool_at, pool_at + ID_BYTES);
  pool_at += ID_BYTES;
  return id;
}

/**
 * The signature the `cookies` library (through keygrip, as Koa configures it) writes in
 * `<name>.sig`: HMAC-SHA1 of `name=value` under the first key, base64url without
 * padding. Verification stays the library's (ctx.cookies.get, constant-time over every
 * key); this only writes what it would write.
 */
export function cookieSignature(key: string, name: string, value: string): string {
  return createHmac('sha1', key).update(`${name}=${value}`).digest('base64url');
}

/**
 * The two Set-Cookie lines of the visitor cookie, byte for byte what
 * `ctx.cookies.set(VISITOR_COOKIE, id, { signed, httpOnly, sameSite: 'lax', maxAge, overwrite })`
 * writes (cookies 0.9): the value, then its signature, each with path, expiry, SameSite,
 * Secure on an encrypted connection, HttpOnly. Made here without the library's option
 * handling because a front page answers every new visitor with them.
 */
export function visitorCookieLines(key: string, visitor_id: string, now_ms: number, secure: boolean): [string, string] {
  const attributes = `; path=/; expires=${new Date(now_ms + VISITOR_COOKIE_MAX_AGE_MS).toUTCString()}; samesite=lax${secure ? '; secure' : ''}; httponly`;
  return [
    `${VISITOR_COOKIE}=${visitor_id}${attributes}`,
    `${VISITOR_COOKIE}.sig=${cookieSignature(key, VISITOR_COOKIE, visitor_id)}${attributes}`,
  ];
}

/**
 * Sets the visitor cookie on a response as the library's `overwrite: true` does: any
 * earlier line for the cookie or its signature (a refused signature is cleared by
 * ctx.cookies.get) is replaced, other cookies stay in their order.
 */
export function setVisitorCookie(
  res: { getHeader(name: string): unknown; setHeader(name: string, value: string[]): unknown },
  key: string,
  visitor_id: string,
  secure: boolean,
): void {
  const earlier = res.getHeader('Set-Cookie');
  const lines: string[] = earlier === undefined ? [] : Array.isArray(earlier) ? earlier.map(String) : [String(earlier)];
  const kept = lines.filter(
    (line) => !line.startsWith(`${VISITOR_COOKIE}=`) && !line.startsWith(`${VISITOR_COOKIE}.sig=`),
  );
  res.setHeader('Set-Cookie', [...kept, ...visitorCookieLines(key, visitor_id, Date.now(), secure)]);
}
