import type { IncomingMessage, ServerResponse } from 'node:http';
import type { TLSSocket } from 'node:tls';
import type { AddressLimit } from './address_limit.js';
import type { Metrics } from './metrics.js';
import { isLimitedRead, securityHeadersFor } from './read_limiter.js';

/** Response headers as node:http takes them in a flat list: name, value, name, value. */
export type HeaderList = readonly (string | number | readonly string[])[];

/**
 * What a fast answerer gives: the route pattern (for the metrics), the headers every
 * answer of its kind carries (answerHeaders), those of this answer alone, and the body.
 */
export interface FastAnswer {
  route: string;
  headers: HeaderList;
  own_headers?: HeaderList;
  body: Buffer;
}

/**
 * The fixed headers of one kind of answer, made once: its Content-Type, what else its
 * route always sets, and the security headers every answer of that type gets
 * (securityHeadersFor, as Koa's securityHeaders middleware sets them).
 */
export function answerHeaders(content_type: string, more: Readonly<Record<string, string>> = {}): HeaderList {
  const all = { 'Content-Type': content_type, ...more, ...securityHeadersFor(content_type) };
  return Object.entries(all).flat();
}

/**
 * Answers one path, or says undefined and leaves it to Koa. Called before a read is
 * taken from the client's allowance, so it must change nothing a declined request
 * would notice.
 */
export type FastAnswerer = (req: IncomingMessage, query: string) => FastAnswer | undefined;

export interface ReadFastPathDeps {
  /** By exact path (Koa's ctx.path: the URL before `?`, not decoded). */
  answerers: ReadonlyMap<string, FastAnswerer>;
  /** The app's one read limit, the instance Koa's readLimiter checks. */
  read_limit: AddressLimit;
  metrics: Metrics;
  /** The client address as Koa's ctx.ip gives it (the app does not trust proxy headers). */
  client_ip: (req: IncomingMessage) => string;
}

/** Whether the request came over TLS: what Koa's ctx.request.secure says when the app trusts no proxy. */
export const isEncrypted = (req: IncomingMessage): boolean => Boolean((req.socket as TLSSocket).encrypted);

/**
 * Reads answered by node:http itself, in front of Koa, the way the log's tiles are
 * (log/tile_fast_path.ts): reads whose answer is kept between state changes (the front
 * page for a new visitor, the motion list, ledger pages), where Koa's context,
 * middleware chain and response helpers cost more than the answer. Only GET of the
 * plain case is answered, with the answer the route gives, the shared security headers,
 * the same read limit and the same metrics; anything else (HEAD, another path, an
 * answerer that declines or throws, a refused read) returns false untouched and Koa
 * answers it as if this were not here.
 */
export function readFastPath({ answerers, read_limit, metrics, client_ip }: ReadFastPathDeps) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const started_ms = performance.now();
    const { method, url = '' } = req;
    if (method !== 'GET') return false;
    const query_at = url.indexOf('?');
    const path = query_at < 0 ? url : url.slice(0, query_at);
    const answerer = answerers.get(path);
    if (!answerer || !isLimitedRead(method, path)) return false;
    let answer: FastAnswer | undefined;
    try {
      answer = answerer(req, query_at < 0 ? '' : url.slice(query_at + 1));
    } catch {
      // Koa's route meets the same failure, and its errors middleware reports it.
      return false;
    }
    // Answered before a token is taken: a request Koa answers must spend one read, not two.
    if (!answer || !read_limit.take(client_ip(req)).granted) return false;
    // A flat list, not objects spread together: this runs on every answer.
    const headers = answer.own_headers ? answer.headers.concat(answer.own_headers) : answer.headers.slice();
    headers.push('Content-Length', answer.body.length);
    const left = read_limit.lastHeaders();
    for (const name in left) headers.push(name, left[name]!);
    res.writeHead(200, headers as (string | number | string[])[]);
    res.end(answer.body);
    metrics.requestAnswered(answer.route, method, 200, started_ms);
    return true;
  };
}
