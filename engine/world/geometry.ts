/** The plane: 2048 x 2048 tiles, no wrap, in 32 x 32 chunks of 64 x 64 tiles. */
export const WORLD_SIZE = 2048;
export const CHUNK_SIZE = 64;
export const CHUNKS_PER_AXIS = WORLD_SIZE / CHUNK_SIZE;
export const TILE_COUNT = WORLD_SIZE * WORLD_SIZE;
export const CHUNK_COUNT = CHUNKS_PER_AXIS * CHUNKS_PER_AXIS;
export const TILES_PER_CHUNK = CHUNK_SIZE * CHUNK_SIZE;
/** Cells are z levels 0..Z_MAX; a cell key packs a tile index and a z into one safe integer. */
export const Z_MAX = 255;

export function inWorld(x: number, y: number): boolean {
  return Number.isInteger(x) && Number.isInteger(y) && x >= 0 && y >= 0 && x < WORLD_SIZE && y < WORLD_SIZE;
}

export function inChunks(chunk_x: number, chunk_y: number): boolean {
  return (
    Number.isInteger(chunk_x) &&
    Number.isInteger(chunk_y) &&
    chunk_x >= 0 &&
    chunk_y >= 0 &&
    chunk_x < CHUNKS_PER_AXIS &&
    chunk_y < CHUNKS_PER_AXIS
  );
}

/** Row-major: index = y * 2048 + x. */
export function tileIndex(x: number, y: number): number {
  return y * WORLD_SIZE + x;
}

export function chunkIndexOfTile(x: number, y: number): number {
  return Math.floor(y / CHUNK_SIZE) * CHUNKS_PER_AXIS + Math.floor(x / CHUNK_SIZE);
}

export function cellKey(x: number, y: number, z: number): number {
  return tileIndex(x, y) * (Z_MAX + 1) + z;
}

/** Chebyshev distance on the plane plus the vertical distance: reach counts depth equally. */
export function reachDistance(
  from: { x: number; y: number; z: number },
  to: { x: number; y: number; z: number },
): number {
  return Math.max(Math.abs(from.x - to.x), Math.abs(from.y - to.y)) + Math.abs(from.z - to.z);
}

export const DIRECTIONS = {
  n: [0, -1],
  ne: [1, -1],
  e: [1, 0],
  se: [1, 1],
  s: [0, 1],
  sw: [-1, 1],
  w: [-1, 0],
  nw: [-1, -1],
} as const satisfies Record<string, readonly [number, number]>;

export type Direction = keyof typeof DIRECTIONS;
export const DIRECTION_NAMES = Object.keys(DIRECTIONS) as Direction[];
