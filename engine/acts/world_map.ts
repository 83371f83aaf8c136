import { z } from 'zod';
import { defineReadAct } from '../act.js';
import { refuse } from '../refusals.js';
import { CHUNK_SIZE, inChunks } from '../world/geometry.js';
import { chunkCoordinateOrNull } from '../world/coordinate_schemas.js';
import { memberOf } from '../world/rules.js';
import { chunkSummary } from '../world/views.js';

export const MapSchema = z.strictObject({
  chunk_x: chunkCoordinateOrNull('x', 'the chunk you stand in'),
  chunk_y: chunkCoordinateOrNull('y', 'the chunk you stand in'),
});

export const CHUNK_OUT_OF_BOUNDS = 'chunks run 0-31 on each axis';

export const worldMap = defineReadAct({
  name: 'world_map',
  summary:
    'Costs 0 AP: a summary of one chunk (64 x 64 tiles; chunks run 0-31 on each axis): revealed tiles by biome, blocks, roads and members. Null: your own chunk.',
  payload: MapSchema,
  signer: 'primary',
  via_act: true,
  gates: { membership: true, pom: false },
  read(ctx, request) {
    const agent = memberOf(ctx);
    const chunk_x = request.chunk_x ?? Math.floor(agent.x / CHUNK_SIZE);
    const chunk_y = request.chunk_y ?? Math.floor(agent.y / CHUNK_SIZE);
    if (!inChunks(chunk_x, chunk_y)) return refuse('OUT_OF_BOUNDS', CHUNK_OUT_OF_BOUNDS, { chunk_x, chunk_y });
    return { ok: true, result: chunkSummary(ctx.state.world, chunk_x, chunk_y) };
  },
});
