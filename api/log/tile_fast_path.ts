import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressLimit } from '../address_limit.js';
import type { Metrics } from '../metrics.js';
import { isLimitedRead, securityHeadersFor } from '../read_limiter.js';
import { TILE_PATH_AT, TILE_ROUTE, tileAnswer } from './log_routes.js';
import type { LogTiles } from './log_tiles.js';

export interface TileFastPathDeps {
  tiles: LogTiles;
  /** The app's one read limit, the instance Koa's readLimiter checks. */
  read_limit: AddressLimit;
  metrics: Metrics;
  /** The client address as Koa's ctx.ip gives it (the app does not trust proxy headers). */
  client_ip: (req: IncomingMessage) => string;
}

/** Answers a request and says true, or leaves it untouched and says false. */
export type TileFastPath = (req: IncomingMessage, res: ServerResponse) => boolean;

/**
 * Tile and bundle reads answered by node:http itself, in front of Koa. A tlog-tiles
 * client fetches many small immutable objects, and per read the Koa stack (context,
 * middleware chain, response helpers) cost more than the read itself: a path lookup
 * in LogTiles' LRU. Only the plain case is answered here, 200 or 304 for a tile that is
 * there and a client with a read left, with the answer the tile route gives (tileAnswer,
 * securityHeadersFor), the same read limit and the same metrics. Everything else (another
 * path, a path that is no tile, a refused read, a bug) returns false untouched, and Koa
 * answers it as if this were not here: its 404, 429 and 500 stay the only ones.
 */
export function tileFastPath({ tiles, read_limit, metrics, client_ip }: TileFastPathDeps): TileFastPath {
  const prefix = TILE_ROUTE.slice(0, -1);
  return (req, res) => {
    const started_ms = performance.now();
    const { method, url } = req;
    if ((method !== 'GET' && method !== 'HEAD') || !url?.startsWith(prefix)) return false;
    // A query string does not name another tile (Koa's ctx.path drops it too).
    const query_at = url.indexOf('?');
    const path = query_at < 0 ? url : url.slice(0, query_at);
    if (!isLimitedRead(method, path)) return false;
    let served: ReturnType<LogTiles['at']>;
    try {
      served = tiles.at(path.slice(TILE_PATH_AT));
    } catch {
      // Koa's tile route meets the same failure, and its errors middleware reports it.
      return false;
    }
    // Looked up before a token is taken: a path Koa answers must spend one read, not two.
    if (!served || !read_limit.take(client_ip(req)).granted) return false;
    const answer = tileAnswer(served, req.headers['if-none-match'] ?? '');
    const headers = answer.status === 200 ? { 'Content-Length': served.bytes.length } : {};
    const security = securityHeadersFor(answer.headers['Content-Type'] ?? '');
    res.writeHead(answer.status, { ...answer.headers, ...headers, ...security, ...read_limit.lastHeaders() });
    // Node writes no body for HEAD; the headers are GET's, Content-Length included, as Koa answers HEAD.
    res.end(answer.status === 200 && method === 'GET' ? served.bytes : undefined);
    metrics.requestAnswered(TILE_ROUTE, method, answer.status, started_ms);
    return true;
  };
}
