import { LRUCache } from 'lru-cache';
import { PAGE_END, watchersHtml } from '../render/layout.js';
import type { LedgerPages } from './ledger_pages.js';
import type { MotionListAnswer } from './motion_list_answer.js';
import { type FrameDeps, watchersShownTo } from './pages/frame.js';
import type { PageDefinition } from './pages/page_catalogue.js';
import { StatePages } from './pages/state_pages.js';
import { newVisitorId, visitorCookieLines } from './observer/visitor_cookie.js';
import type { IncomingMessage } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { FastAnswer, FastRead } from './fast_reads.js';
import { IMMUTABLE, routeArgsParser } from './read_mount.js';
import type { ReadDefinition } from '../engine/index.js';

// One object per kind of answer: the fast path makes each one's header list once (fast_reads.ts).
const HTML_HEADERS = { 'Content-Type': 'text/html; charset=utf-8' };
/** What Koa writes for a JSON body, and for ctx.type = 'application/json'. */
const JSON_TYPE = 'application/json; charset=utf-8';
const JSON_HEADERS = { 'Content-Type': JSON_TYPE };
/** A ledger page that ends at or below the head (ledgerRoute). */
const FULL_PAGE_HEADERS = { 'Content-Type': JSON_TYPE, 'Cache-Control': IMMUTABLE };

/** Whether the request came over TLS: what Koa's ctx.request.secure says when the app trusts no proxy. */
const isEncrypted = (req: IncomingMessage): boolean => Boolean((req.socket as TLSSocket).encrypted);

/**
 * A read whose answer is made in find (before a read is taken, so it must change nothing a
 * declined request would notice) and given as it is: the kept reads below.
 */
function keptRead(
  route: string,
  make: (query: string, req: IncomingMessage) => FastAnswer | undefined,
): FastRead<FastAnswer> {
  // GET only: HEAD of these is rare enough to leave to Koa.
  const find = (_path: string, query: string, req: IncomingMessage) => make(query, req);
  return { route, prefix: route, exact: true, get_only: true, find, answer: (found) => found };
}

/**
 * A kept page (the front page) for a request that carries no cookie at all: a new
 * visitor, given its cookie and the page with its watchers line, as the page route
 * does (api/pages/page_routes.ts with pageVisitor). A request with any Cookie header goes
 * to Koa, whose cookie library checks the signature.
 */
export function keptPageRead(
  page: PageDefinition,
  deps: { state_pages: StatePages; frame: FrameDeps; cookie_key: string },
): FastRead<FastAnswer> {
  if (!StatePages.keeps(page)) throw new Error(`page ${page.path} is not kept between state changes`);
  const make = (query: string, req: IncomingMessage): FastAnswer | undefined => {
    if (query !== '' || req.headers.cookie !== undefined) return undefined;
    const before_watchers = deps.state_pages.beforeWatchers(page);
    if (before_watchers === null) return undefined;
    // A new visitor is not yet counted as watching (pageFrame): only the line names it.
    const visitor_id = newVisitorId();
    const line = watchersHtml(watchersShownTo(deps.frame, visitor_id)) + PAGE_END;
    return {
      status: 200,
      headers: HTML_HEADERS,
      own_headers: ['Set-Cookie', visitorCookieLines(deps.cookie_key, visitor_id, Date.now(), isEncrypted(req))],
      // The kept bytes and the visitor's line: the page's text is not encoded again per request.
      body: Buffer.concat([before_watchers.bytes, Buffer.from(line)]),
    };
  };
  return keptRead(page.path, make);
}

/** GET /api/v1/motions without a query, from the kept body (MotionListAnswer). */
export function motionListRead(
  read: ReadDefinition,
  answer: MotionListAnswer,
  clock: () => number,
): FastRead<FastAnswer> {
  return keptRead(read.path, (query) =>
    query === '' ? { status: 200, headers: JSON_HEADERS, body: answer.body(clock()) } : undefined,
  );
}

/**
 * A query of plain `name=digits` pairs, each name once: the only kind answered here, as
 * Koa's parser (URLSearchParams) reads it without decoding anything. Any other query
 * (escapes, repeated names, signs) goes to Koa, whose parse and 422 stay the only ones.
 */
const PLAIN_QUERY = /^(?:[a-z_]{1,32}=\d{1,15}(?:&[a-z_]{1,32}=\d{1,15})*)?$/;

function plainQuery(query: string): Record<string, string> | undefined {
  if (!PLAIN_QUERY.test(query)) return undefined;
  const values: Record<string, string> = Object.create(null);
  if (query === '') return values;
  for (const pair of query.split('&')) {
    const at = pair.indexOf('=');
    const name = pair.slice(0, at);
    if (Object.hasOwn(values, name)) return undefined;
    values[name] = pair.slice(at + 1);
  }
  return values;
}

/** GET /api/v1/ledger with a plain query, from the ledger's kept pages, as ledgerRoute answers it. */
export function ledgerRead(read: ReadDefinition, pages: LedgerPages): FastRead<FastAnswer> {
  const argsOf = routeArgsParser(read.args, read.path);
  // The parse is a function of the query text alone: a client paging through asks the same few again and again.
  const parsed = new LRUCache<string, { from: number; limit: number }>({ max: 1024 });
  return keptRead(read.path, (query): FastAnswer | undefined => {
    let args = parsed.get(query);
    if (!args) {
      const values = plainQuery(query);
      if (!values) return undefined;
      // Throws on a value the read refuses: the fast path then leaves the 422 to Koa.
      args = argsOf({ params: {}, query: values }) as { from: number; limit: number };
      parsed.set(query, args);
    }
    const { from, limit } = args;
    const { body, full } = pages.page(from, limit);
    return { status: 200, headers: full ? FULL_PAGE_HEADERS : JSON_HEADERS, body };
  });
}
