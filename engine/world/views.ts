import { isoAt } from '../time.js';
import { agentsWithin } from './agent_places.js';
import { forEachSetTile } from './discoveries.js';
import { CHUNK_SIZE, WORLD_SIZE, chunkIndexOfTile, inWorld, tileIndex } from './geometry.js';
import { BIOMES, BLOCKS, materialName } from './materials.js';
import { PLACED, isRevealed, isSolid, materialAt, type WorldState } from './world_state.js';

/**
 * Read views of the world, shared by the public reads and the read acts. Each one
 * answers an unrevealed tile with `revealed: false` and nothing else.
 */
export type TileView =
  | { x: number; y: number; revealed: false }
  | {
      x: number;
      y: number;
      revealed: true;
      biome: string;
      z: number;
      road: boolean;
      top_block: number | null;
      discovered_by: string | null;
      discovered_at: string;
    };

export function tileView(world: WorldState, x: number, y: number): TileView {
  const index = tileIndex(x, y);
  if (!isRevealed(world, index)) return { x, y, revealed: false };
  const by = world.discoveries.discovererOf(index);
  return {
    x,
    y,
    revealed: true,
    biome: BIOMES[world.terrain.biome[index]!]!,
    z: world.surface[index]!,
    road: world.roads.has(index),
    top_block: world.top_block[index] || null,
    discovered_by: by === 0 ? null : (world.agent_order[by - 1] ?? null),
    discovered_at: isoAt(world.discoveries.revealedAtSecondsOf(index) * 1000),
  };
}

/** The cells of a column that touch air or water on any of their six faces, top down. */
export function exposedFaces(
  world: WorldState,
  x: number,
  y: number,
): { z: number; material: string; placed: boolean }[] {
  const neighbours = [
    [x + 1, y],
    [x - 1, y],
    [x, y + 1],
    [x, y - 1],
  ].filter(([nx, ny]) => inWorld(nx!, ny!)) as [number, number][];
  // Below the lowest open cell of this column and its neighbours everything is enclosed.
  let lowest = solidTop(world, x, y);
  for (const [nx, ny] of neighbours) lowest = Math.min(lowest, solidTop(world, nx, ny));
  for (const [cx, cy] of [[x, y], ...neighbours] as [number, number][]) {
    for (const z of world.cells.get(tileIndex(cx, cy))?.keys() ?? []) lowest = Math.min(lowest, z);
  }
  const faces: { z: number; material: string; placed: boolean }[] = [];
  for (let z = world.surface[tileIndex(x, y)]!; z >= Math.max(0, lowest - 1); z--) {
    const material = materialAt(world, x, y, z);
    if (!isSolid(material)) continue;
    const open =
      !isSolid(materialAt(world, x, y, z + 1)) ||
      (z > 0 && !isSolid(materialAt(world, x, y, z - 1))) ||
      neighbours.some(([nx, ny]) => !isSolid(materialAt(world, nx, ny, z)));
    if (!open) continue;
    const placed = ((world.cells.get(tileIndex(x, y))?.get(z) ?? 0) & PLACED) !== 0;
    faces.push({ z, material: materialName(material), placed });
  }
  return faces;
}

/** The highest solid cell of a column (below any water). */
function solidTop(world: WorldState, x: number, y: number): number {
  let z = world.surface[tileIndex(x, y)]!;
  while (z > 0 && !isSolid(materialAt(world, x, y, z))) z--;
  return z;
}

/** Every live placed block in one chunk, on revealed tiles only. */
export function chunkBlocks(
  world: WorldState,
  chunk_x: number,
  chunk_y: number,
): { x: number; y: number; z: number; block_id: number; block: string }[] {
  const blocks: { x: number; y: number; z: number; block_id: number; block: string }[] = [];
  for (let y = chunk_y * CHUNK_SIZE; y < (chunk_y + 1) * CHUNK_SIZE; y++) {
    for (let x = chunk_x * CHUNK_SIZE; x < (chunk_x + 1) * CHUNK_SIZE; x++) {
      const index = tileIndex(x, y);
      const column = world.cells.get(index);
      if (!column || !isRevealed(world, index)) continue;
      for (const [z, value] of [...column].sort(([a], [b]) => a - b)) {
        if ((value & PLACED) === 0) continue;
        const block_id = value & ~PLACED;
        blocks.push({ x, y, z, block_id, block: BLOCKS[block_id]! });
      }
    }
  }
  return blocks;
}

const revealed_cache = new WeakMap<
  WorldState,
  { versions: number; chunks: { chunk_x: number; chunk_y: number; revealed_tiles: number }[] }
>();

/** Revealed tiles per chunk, for the chunks that have any; rescanned only when some chunk's version moved. */
export function revealedChunks(world: WorldState): { chunk_x: number; chunk_y: number; revealed_tiles: number }[] {
  let versions = 0;
  for (const version of world.chunk_version) versions += version;
  const cached = revealed_cache.get(world);
  if (cached && cached.versions === versions) return cached.chunks;
  const chunks = scanRevealedChunks(world);
  revealed_cache.set(world, { versions, chunks });
  return chunks;
}

function scanRevealedChunks(world: WorldState): { chunk_x: number; chunk_y: number; revealed_tiles: number }[] {
  const counts = new Map<number, number>();
  forEachSetTile(world.revealed, (tile) => {
    const chunk = chunkIndexOfTile(tile % WORLD_SIZE, Math.floor(tile / WORLD_SIZE));
    counts.set(chunk, (counts.get(chunk) ?? 0) + 1);
  });
  return [...counts.entries()]
    .sort(([a], [b]) => a - b)
    .map(([chunk, revealed_tiles]) => ({
      chunk_x: chunk % (WORLD_SIZE / CHUNK_SIZE),
      chunk_y: Math.floor(chunk / (WORLD_SIZE / CHUNK_SIZE)),
      revealed_tiles,
    }));
}

/** A chunk in numbers: revealed tiles by biome, blocks, roads and the members in it. */
export function chunkSummary(world: WorldState, chunk_x: number, chunk_y: number) {
  const biomes: Record<string, number> = {};
  let revealed_tiles = 0;
  let roads = 0;
  for (let y = chunk_y * CHUNK_SIZE; y < (chunk_y + 1) * CHUNK_SIZE; y++) {
    for (let x = chunk_x * CHUNK_SIZE; x < (chunk_x + 1) * CHUNK_SIZE; x++) {
      const index = tileIndex(x, y);
      if (!isRevealed(world, index)) continue;
      revealed_tiles++;
      const biome = BIOMES[world.terrain.biome[index]!]!;
      biomes[biome] = (biomes[biome] ?? 0) + 1;
      if (world.roads.has(index)) roads++;
    }
  }
  const [x0, y0] = [chunk_x * CHUNK_SIZE, chunk_y * CHUNK_SIZE];
  const agents = agentsWithin(world, x0, y0, x0 + CHUNK_SIZE - 1, y0 + CHUNK_SIZE - 1)
    .filter((agent) => isRevealed(world, tileIndex(agent.x, agent.y)))
    .map((agent) => ({ agent_id: agent.agent_id, x: agent.x, y: agent.y }));
  return {
    chunk_x,
    chunk_y,
    revealed_tiles,
    biomes,
    blocks: chunkBlocks(world, chunk_x, chunk_y).length,
    roads,
    agents,
  };
}
