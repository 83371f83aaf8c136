import Cookies from 'cookies';
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  newVisitorId,
  setVisitorCookie,
  VISITOR_COOKIE,
  VISITOR_COOKIE_MAX_AGE_MS,
} from '../api/observer/visitor_cookie.js';

/** The options observer_routes.ts gave ctx.cookies.set for the visitor cookie. */
const LIBRARY_OPTIONS = {
  signed: true,
  httpOnly: true,
  sameSite: 'lax' as const,
  maxAge: VISITOR_COOKIE_MAX_AGE_MS,
  overwrite: true,
};

/** Just enough of a response for both writers: the Set-Cookie header as node keeps it. */
function fakeResponse(earlier: string[]) {
  const headers: Record<string, unknown> = earlier.length > 0 ? { 'set-cookie': [...earlier] } : {};
  return {
    getHeader: (name: string) => headers[name.toLowerCase()] as string[] | undefined,
    setHeader(name: string, value: unknown) {
      headers[name.toLowerCase()] = value;
      return this;
    },
    lines: () => headers['set-cookie'] as string[],
  };
}

/** A request as the cookies library reads it: its Cookie header, and whether the socket is encrypted. */
const fakeRequest = (cookie?: string) => ({ headers: cookie ? { cookie } : {}, connection: {} });

const key = fc.string({ minLength: 1, maxLength: 64 });
const visitorId = fc
  .uint8Array({ minLength: 8, maxLength: 8 })
  .map((bytes) => `v_${Buffer.from(bytes).toString('hex')}`);
const earlierLine = fc.oneof(
  fc.constant('tessera_visitor.sig=; path=/; expires=Thu, 01 Jan 1970 00:00:00 GMT; httponly'),
  fc.constant('tessera_visitor=v_0123456789abcdef; path=/; httponly'),
  fc.constant('tessera_unwatched=v_0123456789abcdef; path=/; httponly'),
  fc.constant('tessera_visitor_other=1; path=/'),
  fc.constant('other=1; path=/'),
);

afterEach(() => vi.restoreAllMocks());

describe('the visitor cookie written without the cookies library', () => {
  it('writes exactly the Set-Cookie lines ctx.cookies.set wrote, earlier lines kept or replaced alike', () => {
    fc.assert(
      fc.property(
        key,
        visitorId,
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        fc.boolean(),
        fc.array(earlierLine, { maxLength: 4 }),
        (secret, id, now_ms, secure, earlier) => {
          vi.spyOn(Date, 'now').mockReturnValue(now_ms);
          const by_library = fakeResponse(earlier);
          new Cookies(fakeRequest() as never, by_library as never, { keys: [secret], secure }).set(
            VISITOR_COOKIE,
            id,
            LIBRARY_OPTIONS,
          );
          const by_hand = fakeResponse(earlier);
          setVisitorCookie(by_hand, secret, id, secure);
          expect(by_hand.lines()).toEqual(by_library.lines());
        },
      ),
      { numRuns: 500 },
    );
  });

  it('is accepted by the library under its key, and refused under another key or with another value', () => {
    fc.assert(
      fc.property(key, key, visitorId, visitorId, (secret, other_secret, id, other_id) => {
        const response = fakeResponse([]);
        setVisitorCookie(response, secret, id, false);
        const pairs = response.lines().map((line) => line.split(';')[0]!);
        const cookie = pairs.join('; ');
        const read = (keys: string[], header: string) =>
          new Cookies(fakeRequest(header) as never, fakeResponse([]) as never, { keys }).get(VISITOR_COOKIE, {
            signed: true,
          });
        expect(read([secret], cookie)).toBe(id);
        expect(read([other_secret, secret], cookie)).toBe(id);
        if (other_secret !== secret) expect(read([other_secret], cookie)).toBeUndefined();
        if (other_id !== id) expect(read([secret], cookie.replace(id, other_id))).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it('draws ids of 64 random bits, none repeated across pool refills', () => {
    const ids = Array.from({ length: 5_000 }, newVisitorId);
    for (const id of ids) expect(id).toMatch(/^v_[0-9a-f]{16}$/);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
