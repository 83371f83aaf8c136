import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressLimit } from './address_limit.js';
import {
  bodyOf,
  encodingCharge,
  selectRepresentation,
  VARY_ACCEPT_ENCODING,
  type Selected,
} from './answer_encoding.js';
import type { Metrics } from './metrics.js';
import { isLimitedRead, securityHeadersFor } from './read_limiter.js';
import { readsCost, type ReadWeights } from './read_cost.js';

/** A read's answer as both paths give it: 200 with a body, or 304 without one. */
export interface FastAnswer {
  status: 200 | 304;
  /**
   * Beside the security headers, Content-Length and the read limit's, which every answer
   * carries. Kept per kind of answer (a tile, a chunk version, HTML pages): the fast path
   * makes its header list once per such object.
   */
  headers: Readonly<Record<string, string>>;
  /** Headers of this answer alone (a new visitor's Set-Cookie lines), as writeHead's flat list. */
  own_headers?: readonly (string | string[])[];
  /** Written for a GET answered 200 only (node:http writes none for HEAD or 304, whatever this holds). */
  body: Uint8Array;
}

/** One kind of read answered in front of Koa: a log tile, a chunk binary, a kept page or list. */
export interface FastRead<Found> {
  /** The route's pattern, as the router and the metrics name it. */
  route: string;
  /** The paths this read may answer start with this (or, `exact`, are this). */
  prefix: string;
  exact?: boolean;
  /** Answers GET only, leaving HEAD to Koa (the front page, whose answer sets a cookie). */
  get_only?: boolean;
  /**
   * What a path (query string dropped) names, with the query ('' when none) and the
   * request, or undefined to leave the request to Koa: a path this read does not serve,
   * or one Koa answers otherwise (404, 422). Must not spend a read. A throw leaves the
   * request to Koa too, whose route meets the same failure.
   */
  find(path: string, query: string, req: IncomingMessage): Found | undefined;
  /**
   * The answer the read's Koa route gives, with If-None-Match as sent ('' when absent). The
   * fast path asks for the 200 (''), and decides 304 itself for the representation it sends
   * (answer_encoding.ts), as Koa's compressAnswers does for the route.
   */
  answer(found: Found, if_none_match: string): FastAnswer;
}

export interface FastReadDeps {
  /** The app's one read limit, the instance Koa's readLimiter checks, and what a read of it buys. */
  read_limit: AddressLimit;
  read_weights: ReadWeights;
  metrics: Metrics;
  /** The client address as Koa's ctx.ip gives it (the app does not trust proxy headers). */
  client_ip: (req: IncomingMessage) => string;
}

/** Answers a request and says true, or leaves it untouched and says false. */
export type FastPath = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * Reads answered by node:http itself, in front of Koa. For a small object read often
 * (a tile, a chunk revalidated with its ETag) the Koa stack (context, middleware chain,
 * response helpers) cost more than the read itself: a lookup in a cache. Only the plain
 * case is answered here, 200 or 304 for something that is there and a client with a read
 * left, with the answer its Koa route gives, the shared security headers
 * (securityHeadersFor), the same read limit and the same metrics. Everything else
 * (another path, a path that names nothing, a refused read, a bug) returns false
 * untouched, and Koa answers it as if this were not here: its 404, 422, 429 and 500 stay
 * the only ones.
 */
export function fastReads(reads: readonly FastRead<unknown>[], deps: FastReadDeps): FastPath {
  const { read_limit, read_weights, metrics, client_ip } = deps;
  // An answer's own and security headers, as writeHead's flat list of names and values,
  // made once per headers object (the reads keep theirs per tile, per chunk version, per
  // kind of page): a request then copies one array rather than merging objects.
  const fixed = new WeakMap<object, (string | string[])[]>();
  const fixedHeaders = (headers: Readonly<Record<string, string>>): (string | string[])[] => {
    let list = fixed.get(headers);
    if (!list) {
      list = Object.entries({ ...headers, ...securityHeadersFor(headers['Content-Type'] ?? '') }).flat();
      fixed.set(headers, list);
    }
    return list;
  };
  // A 200's headers as sent in a representation (a coding, Vary, the ETag of what is sent,
  // a 304's without the type), made once per headers object and representation.
  const variants = new WeakMap<object, Map<string, Readonly<Record<string, string>>>>();
  const headersOf = (
    base: Readonly<Record<string, string>>,
    status: 200 | 304,
    selected: Selected,
  ): Readonly<Record<string, string>> => {
    if (status === 200 && !selected.varies && !selected.coding) return base;
    const key = `${status} ${selected.coding ?? 'identity'} ${selected.varies}`;
    let kept = variants.get(base);
    if (!kept) {
      kept = new Map();
      variants.set(base, kept);
    }
    let headers = kept.get(key);
    if (!headers) {
      const made: Record<string, string> = { ...base };
      // As Koa answers a 304: the route's headers but the type.
      if (status === 304) delete made['Content-Type'];
      if (selected.etag !== undefined) made.ETag = selected.etag;
      // A 304's stored 200 keeps its own (RFC 9110 section 15.4.5 lists what a 304 carries).
      if (selected.coding && status === 200) made['Content-Encoding'] = selected.coding;
      if (selected.varies) made.Vary = VARY_ACCEPT_ENCODING;
      headers = Object.freeze(made);
      kept.set(key, headers);
    }
    return headers;
  };
  return (req, res) => {
    const started_ms = performance.now();
    const { method, url } = req;
    if ((method !== 'GET' && method !== 'HEAD') || url === undefined) return false;
    // Koa's ctx.path drops the query string too.
    const query_at = url.indexOf('?');
    const path = query_at < 0 ? url : url.slice(0, query_at);
    const read = reads.find((candidate) =>
      candidate.exact ? path === candidate.prefix : path.startsWith(candidate.prefix),
    );
    if (!read || (read.get_only && method !== 'GET') || !isLimitedRead(method, path)) return false;
    let found: unknown;
    try {
      found = read.find(path, query_at < 0 ? '' : url.slice(query_at + 1), req);
    } catch {
      // Koa's route meets the same failure, and its errors middleware reports it.
      return false;
    }
    // Looked up before a token is taken: a path Koa answers must spend one read, not two.
    if (found === undefined) return false;
    // The read's 200, then which representation the request gets (answer_encoding.ts, as
    // Koa's compressAnswers decides it): encoded when asked and worth it, 304 when
    // If-None-Match holds the ETag of what would be sent.
    const ok = read.answer(found, '');
    const selected = selectRepresentation(
      path,
      ok.body,
      ok.headers['Content-Type'] ?? '',
      ok.headers.ETag,
      req.headers['accept-encoding'],
      req.headers['if-none-match'] ?? '',
    );
    const status = selected.not_modified ? 304 : 200;
    // Kept answers cost no CPU to speak of, only their bytes (a ledger page of 1,000 entries is a few reads),
    // counted as identity whatever the coding, as Koa's read limiter counts them.
    const bytes = status === 200 && method === 'GET' ? ok.body.length : 0;
    const ip = client_ip(req);
    if (!read_limit.take(ip, readsCost(read_weights, 0, bytes)).granted) return false;
    // Encoded once the read is granted; kept with the body, so a kept answer is encoded once.
    const sent = status === 200 ? bodyOf(ok.body, selected) : { bytes: ok.body, cpu_ms: 0 };
    read_limit.charge(ip, encodingCharge(read_weights, selected.cpu_ms + sent.cpu_ms, bytes));
    const headers = fixedHeaders(headersOf(ok.headers, status, selected)).slice();
    if (ok.own_headers) headers.push(...ok.own_headers);
    // HEAD's too: Koa answers HEAD with GET's headers.
    if (status === 200) headers.push('Content-Length', String(sent.bytes.length));
    read_limit.appendLastHeaders(headers);
    res.writeHead(status, headers);
    // Node writes no body for HEAD; the headers are GET's, Content-Length included, as Koa answers HEAD.
    res.end(status === 200 && method === 'GET' ? sent.bytes : undefined);
    metrics.requestAnswered(read.route, method, status, started_ms);
    return true;
  };
}
