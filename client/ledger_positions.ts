/*
 * Where in the world a ledger entry happened, read from its data: the tiles it names as
 * `x`/`y`, or as `from`, `to` and `position` points. Pure, with no Node API, so an agent's
 * filter and the server's agree on which chunk an entry touched.
 */

export interface TilePoint {
  x: number;
  y: number;
}

const CHUNK_TILES = 64;

function pointOf(value: unknown): TilePoint | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  const { x, y } = value as Record<string, unknown>;
  return Number.isInteger(x) && Number.isInteger(y) ? { x: x as number, y: y as number } : undefined;
}

/** The tiles an entry's data names, in the order above; none for an entry off the map. */
export function entryTiles(data: unknown): TilePoint[] {
  if (typeof data !== 'object' || data === null) return [];
  const record = data as Record<string, unknown>;
  const tiles: TilePoint[] = [];
  const own = pointOf(record);
  if (own) tiles.push(own);
  for (const key of ['from', 'to', 'position']) {
    const point = pointOf(record[key]);
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
