import { z } from 'zod';
import { CHUNK_OUT_OF_BOUNDS } from '../acts/world_map.js';
import { defineRead, IsoTime } from '../read.js';
import { refuse } from '../refusals.js';
import type { SocietyState } from '../state.js';
import { inChunks, inWorld, tileIndex } from '../world/geometry.js';
import { BIOMES } from '../world/materials.js';
import { STRUCTURES_MAX_MASTS, STRUCTURES_MAX_ROADS, structuresView } from '../world/structures.js';
import { chunkBlocks, revealedChunks, tileView } from '../world/views.js';
import { isRevealed } from '../world/world_state.js';

// Integers without limits here: a value outside the world is 404 OUT_OF_BOUNDS, as the specification says.
const ChunkArgs = z.object({
  chunk_x: z.int().describe('Chunk column, 0-31'),
  chunk_y: z.int().describe('Chunk row, 0-31'),
});

function outsideChunks(chunk_x: number, chunk_y: number) {
  return inChunks(chunk_x, chunk_y) ? undefined : refuse('OUT_OF_BOUNDS', CHUNK_OUT_OF_BOUNDS, { chunk_x, chunk_y });
}

export const TileSchema = z.discriminatedUnion('revealed', [
  z.object({ x: z.int(), y: z.int(), revealed: z.literal(false) }),
  z.object({
    x: z.int(),
    y: z.int(),
    revealed: z.literal(true),
    biome: z.enum(BIOMES),
    z: z.int(),
    road: z.boolean(),
    top_block: z.int().nullable(),
    discovered_by: z.string().nullable(),
    discovered_at: IsoTime,
  }),
]);

export const worldTile = defineRead({
  name: 'world_tile',
  title: 'One tile',
  summary: 'One tile: biome, height, road, top block, discoverer; an unrevealed tile says only revealed: false.',
  path: '/api/v1/world/tile/{x}/{y}',
  args: z.object({
    x: z.int().describe('Absolute column, 0 to 2047, west to east'),
    y: z.int().describe('Absolute row, 0 to 2047, north to south'),
  }),
  response: { kind: 'json', schema: TileSchema },
  refusals: ['OUT_OF_BOUNDS'],
  view: ({ state }, { x, y }) => {
    if (inWorld(x, y)) return tileView(state.world, x, y);
    return refuse('OUT_OF_BOUNDS', `(${x}, ${y}) is outside the world: x and y run 0-2047.`, { x, y });
  },
});

export const worldChunk = defineRead({
  name: 'world_chunk',
  title: 'Chunk binary',
  summary: 'One chunk (64 x 64 tiles) in the compact binary format of docs/world.md, with a content-hash ETag.',
  path: '/api/v1/world/chunk/{chunk_x}/{chunk_y}',
  args: ChunkArgs,
  response: {
    kind: 'bytes',
    media_type: 'application/octet-stream',
    description: 'The chunk binary; an unchanged chunk (If-None-Match) answers 304 with no body.',
  },
  refusals: ['OUT_OF_BOUNDS'],
  view: ({ chunks }, { chunk_x, chunk_y }) => outsideChunks(chunk_x, chunk_y) ?? chunks.get(chunk_x, chunk_y),
});

export const worldBlocks = defineRead({
  name: 'world_blocks',
  title: 'Blocks of a chunk',
  summary: 'Every live placed block in one chunk (chunks run 0-31 on each axis), on revealed tiles only.',
  path: '/api/v1/world/blocks/{chunk_x}/{chunk_y}',
  args: ChunkArgs,
  response: {
    kind: 'json',
    schema: z.object({
      chunk_x: z.int(),
      chunk_y: z.int(),
      blocks: z.array(z.object({ x: z.int(), y: z.int(), z: z.int(), block_id: z.int(), block: z.string() })),
    }),
  },
  refusals: ['OUT_OF_BOUNDS'],
  view: ({ state }, { chunk_x, chunk_y }) =>
    outsideChunks(chunk_x, chunk_y) ?? { chunk_x, chunk_y, blocks: chunkBlocks(state.world, chunk_x, chunk_y) },
});

export const worldRevealed = defineRead({
  name: 'world_revealed',
  title: 'Explored chunks',
  summary: 'The chunks that hold any revealed tile, with how many tiles of each are revealed.',
  path: '/api/v1/world/revealed',
  args: z.object({}),
  response: {
    kind: 'json',
    schema: z.object({ chunks: z.array(z.object({ chunk_x: z.int(), chunk_y: z.int(), revealed_tiles: z.int() })) }),
  },
  view: ({ state }) => ({ chunks: revealedChunks(state.world) }),
});

/** Each member's last position; a member always stands on a revealed tile (it revealed it by arriving). */
export function memberPositions(state: Readonly<SocietyState>) {
  return state.world.agent_order.map((agent_id) => {
    const agent = state.world.agents.get(agent_id)!;
    const revealed = isRevealed(state.world, tileIndex(agent.x, agent.y));
    const handle = state.agents.get(agent_id)?.handle ?? null;
    return { agent_id, handle, ...(revealed ? { x: agent.x, y: agent.y } : {}) };
  });
}

export const worldAgents = defineRead({
  name: 'world_agents',
  title: 'Where members stand',
  summary: 'Each member with its handle and last position (x and y left out while its tile is unrevealed).',
  path: '/api/v1/world/agents',
  args: z.object({}),
  response: {
    kind: 'json',
    schema: z.object({
      agents: z.array(
        z.object({ agent_id: z.string(), handle: z.string().nullable(), x: z.int().optional(), y: z.int().optional() }),
      ),
    }),
  },
  view: ({ state }) => ({ agents: memberPositions(state) }),
});

const Position = { x: z.int(), y: z.int() };
const MastSchema = z.object({ relay_id: z.int(), ...Position, builder: z.string() });

export const worldStructures = defineRead({
  name: 'world_structures',
  title: 'What members built',
  summary: `Relay masts (relay_id, position, builder), links between masts (each pair once, lower relay_id first), the Aether Hub or null, and road tiles; at most ${STRUCTURES_MAX_MASTS} masts and ${STRUCTURES_MAX_ROADS} roads, with truncated saying whether more exist. Placed blocks are in world_blocks.`,
  path: '/api/v1/world/structures',
  args: z.object({}),
  response: {
    kind: 'json',
    schema: z.object({
      masts: z.array(MastSchema),
      links: z.array(z.object({ from_relay_id: z.int(), to_relay_id: z.int() })),
      hub: MastSchema.nullable(),
      roads: z.array(z.object(Position)),
      truncated: z.object({ masts: z.boolean(), roads: z.boolean() }),
    }),
  },
  view: ({ state }) => structuresView(state),
});
