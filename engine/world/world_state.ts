import { invariant } from '../invariant.js';
import { CHUNK_COUNT, TILE_COUNT, Z_MAX, chunkIndexOfTile, tileIndex } from './geometry.js';
import { Discoveries } from './discoveries.js';
import { AIR, WATER } from './materials.js';
import { generateTerrain, naturalMaterial, sharedBytes, type Terrain } from './terrain.js';

/** A placed block is stored with this bit set, so it is told apart from terrain of the same material. */
export const PLACED = 0x80;

export interface WorldAgent {
  agent_id: string;
  /** Registration order among members; tiles record their discoverer by it. */
  ordinal: number;
  x: number;
  y: number;
  /** AP held as of ap_as_of_ms; what accrued since is computed from the action time. */
  ap: number;
  ap_as_of_ms: number;
  inventory: Record<string, number>;
  standing: number;
  /** UTC day (days since the epoch) and how many tiles earned the exploration bonus on it. */
  explore_day: number;
  explore_bonus_tiles: number;
}

/**
 * The world in memory. The generated plane (biome, base height) is rebuilt from the
 * seed and never stored; what members changed is kept sparse (cells, roads) or in
 * typed arrays over the plane (revealed tiles and their discoverers). The arrays the
 * chunk encoder reads (biome, surface, top_block, revealed) sit on shared memory.
 */
export interface WorldState {
  terrain: Terrain;
  /** Current top z per tile: the highest cell that is not air (water counts). */
  surface: Uint8Array;
  /** block_id of the topmost placed block per tile, 0 where none. */
  top_block: Uint8Array;
  /** One bit per tile. */
  revealed: Uint8Array;
  /** Who revealed each tile first, and when. */
  discoveries: Discoveries;
  /** Bumped whenever anything a chunk read shows changes; chunk caches key on it. */
  chunk_version: Uint32Array;
  /** tile index -> (z -> material, with PLACED for blocks): every cell that differs from the terrain. */
  cells: Map<number, Map<number, number>>;
  roads: Set<number>;
  /** tile index -> when its surface was last gathered (engine ms). */
  gathered_at_ms: Map<number, number>;
  /** Biomes some member has stood on. */
  biomes_discovered: Set<number>;
  agents: Map<string, WorldAgent>;
  /** agent_id by ordinal. */
  agent_order: string[];
}

const terrain_cache = new Map<string, Terrain>();

/** Terrain is immutable once generated, so societies of one seed in one process share it. */
function terrainFor(world_seed: string): Terrain {
  let terrain = terrain_cache.get(world_seed);
  if (!terrain) {
    terrain = generateTerrain(world_seed);
    if (terrain_cache.size >= 2) terrain_cache.delete(terrain_cache.keys().next().value!);
    terrain_cache.set(world_seed, terrain);
  }
  return terrain;
}

export function createWorld(world_seed: string): WorldState {
  const terrain = terrainFor(world_seed);
  const surface = sharedBytes(TILE_COUNT);
  surface.set(terrain.base_height);
  return {
    terrain,
    surface,
    top_block: sharedBytes(TILE_COUNT),
    revealed: sharedBytes(TILE_COUNT / 8),
    discoveries: new Discoveries(),
    chunk_version: new Uint32Array(CHUNK_COUNT).fill(1),
    cells: new Map(),
    roads: new Set(),
    gathered_at_ms: new Map(),
    biomes_discovered: new Set(),
    agents: new Map(),
    agent_order: [],
  };
}

export function isRevealed(world: WorldState, index: number): boolean {
  return (world.revealed[index >> 3]! & (1 << (index & 7))) !== 0;
}

export function markRevealed(world: WorldState, index: number): void {
  world.revealed[index >> 3]! |= 1 << (index & 7);
}

/** The material of a cell now: a recorded change, or else the terrain. PLACED is stripped. */
export function materialAt(world: WorldState, x: number, y: number, z: number): number {
  if (z < 0 || z > Z_MAX) return AIR;
  const changed = world.cells.get(tileIndex(x, y))?.get(z);
  return changed === undefined ? naturalMaterial(world.terrain, x, y, z) : changed & ~PLACED;
}

export function isPlacedBlock(world: WorldState, x: number, y: number, z: number): boolean {
  const changed = world.cells.get(tileIndex(x, y))?.get(z);
  return changed !== undefined && (changed & PLACED) !== 0;
}

export function isSolid(material: number): boolean {
  return material !== AIR && material !== WATER;
}

/** Records a changed cell and brings the tile's surface, top block and chunk version up to date. */
export function setCell(world: WorldState, x: number, y: number, z: number, value: number): void {
  invariant(z >= 0 && z <= Z_MAX, `cell z ${z} out of range`);
  const index = tileIndex(x, y);
  let column = world.cells.get(index);
  if (!column) world.cells.set(index, (column = new Map()));
  column.set(z, value);
  refreshTile(world, x, y);
}

/** Recomputes the surface and topmost placed block of one tile from its cells. */
export function refreshTile(world: WorldState, x: number, y: number): void {
  const index = tileIndex(x, y);
  const column = world.cells.get(index);
  let highest_change = -1;
  let top_block = 0;
  let top_block_z = -1;
  if (column) {
    for (const [z, value] of column) {
      if (z > highest_change) highest_change = z;
      if ((value & PLACED) !== 0 && z > top_block_z) {
        top_block_z = z;
        top_block = value & ~PLACED;
      }
    }
  }
  let z = Math.max(world.terrain.base_height[index]!, highest_change);
  while (z > 0 && materialAt(world, x, y, z) === AIR) z--;
  world.surface[index] = z;
  world.top_block[index] = top_block;
  world.chunk_version[chunkIndexOfTile(x, y)]! += 1;
}

/** The planes a chunk binary is drawn from, all on shared memory. */
export function chunkPlanes(world: WorldState): {
  biome: Uint8Array;
  surface: Uint8Array;
  top_block: Uint8Array;
  revealed: Uint8Array;
} {
  return { biome: world.terrain.biome, surface: world.surface, top_block: world.top_block, revealed: world.revealed };
}
