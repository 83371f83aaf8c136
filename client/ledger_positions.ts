/*
 * Where in the world a ledger entry happened, read from its data: the tile its event
 * declares (engine/events/event_catalogue.ts: data's own x and y, or a field such as `to`,
 * `position` or `site`), and for a move also where it came from. No Node API, so an
 * agent's filter and the server's agree on which chunk an entry touched.
 */
import { EVENT_TILE_FIELDS } from '../engine/events/event_catalogue.js';

export interface TilePoint {
  x: number;
  y: number;
}

const CHUNK_TILES = 64;

/** A move's path starts in one chunk and may end in another: both saw it, so `from` counts too (before `to`). */
const TILE_FIELDS = [...new Set(['.', 'from', ...EVENT_TILE_FIELDS])];

function pointOf(value: unknown): TilePoint | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { x, y } = value as Record<string, unknown>;
  return Number.isInteger(x) && Number.isInteger(y) ? { x: x as number, y: y as number } : undefined;
}

/** The tiles an entry's data names, data's own first and a move's destination last; none for an entry off the map. */
export function entryTiles(data: unknown): TilePoint[] {
  if (typeof data !== 'object' || data === null) return [];
  const record = data as Record<string, unknown>;
  const tiles: TilePoint[] = [];
  for (const field of TILE_FIELDS) {
    const point = pointOf(field === '.' ? record : record[field]);
    if (point) tiles.push(point);
  }
  return tiles;
}

/** Whether an entry names a tile of chunk (chunk_x, chunk_y). */
export function entryTouchesChunk(data: unknown, chunk_x: number, chunk_y: number): boolean {
  return entryTiles(data).some(
    (tile) => Math.floor(tile.x / CHUNK_TILES) === chunk_x && Math.floor(tile.y / CHUNK_TILES) === chunk_y,
  );
}
