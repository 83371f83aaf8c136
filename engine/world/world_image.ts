import { createHash } from 'node:crypto';
import { canonicalJson } from '../canonical.js';
import { forEachSetTile } from './discoveries.js';
import { TILE_COUNT, WORLD_SIZE } from './geometry.js';
import { createWorld, markRevealed, refreshTile, type WorldAgent, type WorldState } from './world_state.js';

/** The world as a snapshot keeps it: only what members changed; the plane comes from the seed. */
export interface WorldImage {
  /** Flat triples: tile index, z, value; sorted. */
  cells: number[];
  roads: number[];
  /** Flat pairs: tile index, engine ms; sorted. */
  gathered: number[];
  biomes_discovered: number[];
  /** Three u32 arrays as little-endian bytes (plain bytes survive msgpack exactly): tile index, discoverer, time. */
  revealed_tiles: Uint8Array;
  revealed_by: Uint8Array;
  revealed_at_s: Uint8Array;
  agents: WorldAgent[];
}

function bytesOf(array: Uint32Array): Uint8Array {
  return new Uint8Array(array.buffer, array.byteOffset, array.byteLength);
}

function u32Of(bytes: Uint8Array): Uint32Array {
  // Copied, because a decoded Uint8Array may sit at an offset a Uint32Array cannot start at.
  return new Uint32Array(bytes.slice().buffer);
}

const ascending = (a: number, b: number) => a - b;

export function worldImage(world: WorldState): WorldImage {
  const cells: number[] = [];
  for (const tile of [...world.cells.keys()].sort(ascending)) {
    const column = world.cells.get(tile)!;
    for (const z of [...column.keys()].sort(ascending)) cells.push(tile, z, column.get(z)!);
  }
  const gathered: number[] = [];
  for (const tile of [...world.gathered_at_ms.keys()].sort(ascending))
    gathered.push(tile, world.gathered_at_ms.get(tile)!);
  const tiles: number[] = [];
  forEachSetTile(world.revealed, (index) => tiles.push(index));
  const revealed_tiles = Uint32Array.from(tiles);
  const revealed_by = Uint32Array.from(tiles, (index) => world.discoveries.discovererOf(index));
  const revealed_at_s = Uint32Array.from(tiles, (index) => world.discoveries.revealedAtSecondsOf(index));
  return {
    cells,
    roads: [...world.roads].sort(ascending),
    gathered,
    biomes_discovered: [...world.biomes_discovered].sort(ascending),
    revealed_tiles: bytesOf(revealed_tiles),
    revealed_by: bytesOf(revealed_by),
    revealed_at_s: bytesOf(revealed_at_s),
    agents: world.agent_order.map((agent_id) => ({
      ...world.agents.get(agent_id)!,
      inventory: { ...world.agents.get(agent_id)!.inventory },
    })),
  };
}

export function restoreWorld(world_seed: string, image: WorldImage): WorldState {
  const world = createWorld(world_seed);
  for (let i = 0; i < image.cells.length; i += 3) {
    const tile = image.cells[i]!;
    let column = world.cells.get(tile);
    if (!column) world.cells.set(tile, (column = new Map()));
    column.set(image.cells[i + 1]!, image.cells[i + 2]!);
  }
  for (const tile of world.cells.keys()) refreshTile(world, tile % WORLD_SIZE, Math.floor(tile / WORLD_SIZE));
  for (const tile of image.roads) world.roads.add(tile);
  for (let i = 0; i < image.gathered.length; i += 2)
    world.gathered_at_ms.set(image.gathered[i]!, image.gathered[i + 1]!);
  for (const biome of image.biomes_discovered) world.biomes_discovered.add(biome);
  const [tiles, by, at_s] = [u32Of(image.revealed_tiles), u32Of(image.revealed_by), u32Of(image.revealed_at_s)];
  for (let i = 0; i < tiles.length; i++) {
    const index = tiles[i]!;
    if (index >= TILE_COUNT) throw new Error('snapshot: revealed tile out of range');
    markRevealed(world, index);
    world.discoveries.record(index, by[i]!, at_s[i]!);
  }
  for (const agent of image.agents) {
    world.agents.set(agent.agent_id, { ...agent, inventory: { ...agent.inventory } });
    world.agent_order[agent.ordinal] = agent.agent_id;
  }
  return world;
}

/** A digest of the world image: the typed arrays by their bytes, the rest by its JCS text. */
export function worldDigest(image: WorldImage): string {
  const hash = createHash('sha256');
  const { revealed_tiles, revealed_by, revealed_at_s, ...rest } = image;
  hash.update(canonicalJson(rest));
  for (const bytes of [revealed_tiles, revealed_by, revealed_at_s]) hash.update(bytes);
  return hash.digest('hex');
}
