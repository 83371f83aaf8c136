import type { Routes } from './routes.js';
import { z } from 'zod';
import type { Engine } from '../engine/engine.js';
import { CHUNK_OUT_OF_BOUNDS } from '../engine/acts/world_map.js';
import { inChunks, inWorld, tileIndex } from '../engine/world/geometry.js';
import { isRevealed } from '../engine/world/world_state.js';
import { chunkBlocks, revealedChunks, tileView } from '../engine/world/views.js';
import type { ChunkCache } from './chunk_cache.js';
import { parseOrThrow } from './parse.js';
import { RefusalError } from './refusal_error.js';

const pathInt = z.string().regex(/^-?\d{1,9}$/, 'must be an integer').transform(Number);
const TilePath = z.object({ x: pathInt, y: pathInt });
const ChunkPath = z.object({ chunk_x: pathInt, chunk_y: pathInt });

interface WorldReadDeps {
  engine: Engine;
  chunks: ChunkCache;
}

/** The public world reads. Unrevealed tiles say only that they are unrevealed, in every one of them. */
export function mountWorldRoutes(router: Routes, { engine, chunks }: WorldReadDeps): void {
  const world = () => engine.state.world;

  const chunkOf = (params: unknown) => {
    const { chunk_x, chunk_y } = parseOrThrow(ChunkPath, params, ['path']);
    if (!inChunks(chunk_x, chunk_y)) throw RefusalError.of('OUT_OF_BOUNDS', CHUNK_OUT_OF_BOUNDS, { chunk_x, chunk_y });
    return { chunk_x, chunk_y };
  };

  router.get('/api/v1/world/tile/:x/:y', (ctx) => {
    const { x, y } = parseOrThrow(TilePath, ctx.params, ['path']);
    if (!inWorld(x, y)) throw RefusalError.of('OUT_OF_BOUNDS', `(${x}, ${y}) is outside the world: x and y run 0-2047.`, { x, y });
    ctx.body = tileView(world(), x, y);
  });

  router.get('/api/v1/world/chunk/:chunk_x/:chunk_y', (ctx) => {
    const { chunk_x, chunk_y } = chunkOf(ctx.params);
    const { body, etag } = chunks.get(chunk_x, chunk_y);
    ctx.set('ETag', etag);
    ctx.set('Cache-Control', 'no-cache');
    if (ctx.get('If-None-Match') === etag) {
      ctx.status = 304;
      return;
    }
    ctx.type = 'application/octet-stream';
    ctx.body = Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  });

  router.get('/api/v1/world/blocks/:chunk_x/:chunk_y', (ctx) => {
    const { chunk_x, chunk_y } = chunkOf(ctx.params);
    ctx.body = { chunk_x, chunk_y, blocks: chunkBlocks(world(), chunk_x, chunk_y) };
  });

  router.get('/api/v1/world/revealed', (ctx) => {
    ctx.body = { chunks: revealedChunks(world()) };
  });

  router.get('/api/v1/world/agents', (ctx) => {
    const state = engine.state;
    ctx.body = {
      agents: state.world.agent_order.map((agent_id) => {
        const agent = state.world.agents.get(agent_id)!;
        // A member always stands on a revealed tile: it revealed it by arriving.
        const revealed = isRevealed(state.world, tileIndex(agent.x, agent.y));
        return { agent_id, handle: state.agents.get(agent_id)?.handle ?? null, ...(revealed ? { x: agent.x, y: agent.y } : {}) };
      }),
    };
  });
}
