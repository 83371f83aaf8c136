/** The colours paintChunkTiles paints with, as [r, g, b] (render/map/palette.ts tileColours). */
export interface TileColours {
  biomes: readonly (readonly number[])[];
  blocks: Readonly<Record<number, readonly number[]>>;
}

/** One chunk as its binary carries it (docs/world.md): 4096 values a layer, row-major; biome 255 is unrevealed. */
export interface ChunkLayers {
  biome: ArrayLike<number>;
  height: ArrayLike<number>;
  block: ArrayLike<number> | undefined;
}

/**
 * The colour of every tile of one 64 x 64 chunk into `out` (RGBA, 4 bytes a tile, row-major);
 * returns how many tiles are revealed. The map script carries this function's own source
 * (render/map_script.ts), and the server's world image calls it (render/world_image.ts):
 * one rule for both, so it names nothing outside itself.
 *
 * - Unrevealed: transparent, so the fog hatch drawn under the plane shows (a hatch is
 *   drawn at screen size, and never reads as a biome).
 * - A placed block: its colour.
 * - Ground sunk below the ground on both sides of it, along a row or a column, within
 *   four tiles (a dug hole, a trench): darker the deeper it is. Lit from the north-west
 *   like the rest, a dug hole showed as a dark and a light stripe.
 * - Other ground: its biome's colour, lit from the north-west by the height step to the
 *   neighbour there (flat ground keeps the legend's colour exactly); a tile whose
 *   north-west neighbour is sunk is not lit, so a hole has no bright rim.
 */
export function paintChunkTiles(
  layers: ChunkLayers,
  colours: TileColours,
  out: Uint8Array | Uint8ClampedArray,
): number {
  const SIZE = 64;
  const HIDDEN = 255;
  const SUNK_REACH_TILES = 4;
  const SUNK_SHADE_PER_LEVEL = 0.12;
  const SUNK_LEVELS_MAX = 5;
  const RELIEF_PER_LEVEL = 0.06;
  const RELIEF_LEVELS_MAX = 4;
  const { biome, height, block } = layers;
  const sunk = new Uint8Array(SIZE * SIZE);
  // The highest revealed ground within reach in one direction from a tile, or -1 when there is none.
  const highest = (x: number, y: number, dx: number, dy: number): number => {
    let best = -1;
    for (let step = 1; step <= SUNK_REACH_TILES; step++) {
      const nx = x + dx * step;
      const ny = y + dy * step;
      if (nx < 0 || ny < 0 || nx >= SIZE || ny >= SIZE) break;
      const tile = ny * SIZE + nx;
      if (biome[tile] !== HIDDEN && height[tile]! > best) best = height[tile]!;
    }
    return best;
  };
  for (let tile = 0; tile < SIZE * SIZE; tile++) {
    if (biome[tile] === HIDDEN) continue;
    const x = tile % SIZE;
    const y = (tile - x) / SIZE;
    const rim = Math.max(
      Math.min(highest(x, y, -1, 0), highest(x, y, 1, 0)),
      Math.min(highest(x, y, 0, -1), highest(x, y, 0, 1)),
    );
    sunk[tile] = Math.min(Math.max(rim - height[tile]!, 0), SUNK_LEVELS_MAX);
  }
  let revealed = 0;
  for (let tile = 0; tile < SIZE * SIZE; tile++) {
    const at = tile * 4;
    const kind = biome[tile]!;
    if (kind === HIDDEN) {
      out[at] = out[at + 1] = out[at + 2] = out[at + 3] = 0;
      continue;
    }
    revealed++;
    const placed = block ? colours.blocks[block[tile]!] : undefined;
    const base = placed ?? colours.biomes[kind] ?? [0, 0, 0];
    let light = 1;
    if (!placed && sunk[tile]! > 0) light = 1 - SUNK_SHADE_PER_LEVEL * sunk[tile]!;
    else if (!placed) {
      const x = tile % SIZE;
      const nw = x > 0 && tile >= SIZE ? tile - SIZE - 1 : -1;
      if (nw >= 0 && biome[nw] !== HIDDEN && sunk[nw] === 0) {
        const step = Math.max(-RELIEF_LEVELS_MAX, Math.min(RELIEF_LEVELS_MAX, height[tile]! - height[nw]!));
        light = 1 + step * RELIEF_PER_LEVEL;
      }
    }
    out[at] = Math.min(255, Math.round(base[0]! * light));
    out[at + 1] = Math.min(255, Math.round(base[1]! * light));
    out[at + 2] = Math.min(255, Math.round(base[2]! * light));
    out[at + 3] = 255;
  }
  return revealed;
}

/** Whether a pixel of the fog lies on a hatch line (FOG in render/map/palette.ts). Carried into the map script too. */
export function fogHatch(x: number, y: number, period_px: number, line_px: number): boolean {
  return (x + y) % period_px < line_px;
}
