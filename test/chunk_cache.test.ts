import { describe, expect, it } from 'vitest';
import { ChunkCache, chunkWorkerModule } from '../api/chunk_cache.js';
import { builtChunk } from '../api/chunk_worker.js';
import { chunkPlanes, createWorld } from '../engine/world/world_state.js';

describe('the chunk cache', () => {
  it('keeps for each chunk built on the pool what building it inline gives, in batches of any size', async () => {
    const world = createWorld('chunk-cache-test');
    // Revealed in stripes and patches, so chunks differ from each other.
    world.revealed.forEach((_, at) => (world.revealed[at] = (at * 2654435761) >>> 24 < 96 ? 0xff : at & 0x3c));
    const cache = new ChunkCache(() => world, { workers: 2, refresh_every_ms: 3_600_000 });
    try {
      // Under the test runner the pool loads the TypeScript source: no build needed, and never a stale one.
      expect(cache.has_pool).toBe(true);
      expect(chunkWorkerModule()).toMatch(/\/api\/chunk_worker_from_source\.mjs$/);
      const all = Array.from({ length: 1024 }, (_, chunk) => chunk);
      // Out of order and in uneven batches: what is kept must still be each chunk's own.
      const shuffled = all.map((chunk) => (chunk * 389) % 1024);
      expect(await cache.buildOnPool(shuffled, 100)).toBe(1024);
      const planes = chunkPlanes(world);
      const inlines = all.map((chunk) => builtChunk(planes, chunk));
      // The planes change under the cache without a version bump: a read that built its chunk again would show it.
      world.surface.fill(1);
      for (const chunk of all) {
        const kept = cache.get(chunk % 32, Math.floor(chunk / 32));
        const inline = inlines[chunk]!;
        expect([kept.etag, Buffer.from(kept.body).equals(Buffer.from(inline.body))], `chunk ${chunk}`).toEqual([
          inline.etag,
          true,
        ]);
      }
    } finally {
      await cache.close();
    }
  });
});
