import type { FastRead } from '../fast_reads.js';
import { TILE_PATH_AT, TILE_ROUTE, tileAnswer } from './log_routes.js';
import type { LogTiles, ServedTile } from './log_tiles.js';

/**
 * Tile and bundle reads in front of Koa (api/fast_reads.ts). A tlog-tiles client fetches
 * many small immutable objects; per read, the tile route's own work is a lookup in
 * LogTiles' LRU. A tile that is there gets the tile route's answer (tileAnswer); a path
 * that is no tile is left to Koa's 404.
 */
export function tileFastRead(tiles: LogTiles): FastRead<ServedTile> {
  return {
    route: TILE_ROUTE,
    prefix: TILE_ROUTE.slice(0, -1),
    find: (path) => tiles.at(path.slice(TILE_PATH_AT)),
    answer: tileAnswer,
  };
}
