import { fileURLToPath } from 'node:url';
import { Piscina } from 'piscina';
import { CHUNK_COUNT, CHUNKS_PER_AXIS, chunkPlanes, type WorldState } from '../engine/index.js';
import { builtChunk, type BuiltChunk, type ChunkTask } from './chunk_worker.js';

interface Cached {
  version: number;
  body: Uint8Array;
  etag: string;
}

/**
 * The module a pool thread runs: the build's JavaScript beside this file, or, under the
 * test runner (this module is TypeScript there), a shim that loads the TypeScript source
 * (api/chunk_worker_from_source.mjs), so a test after an edit never runs a stale build.
 */
export function chunkWorkerModule(): string {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.ts')
    ? here.replace(/chunk_cache\.ts$/, 'chunk_worker_from_source.mjs')
    : here.replace(/chunk_cache\.js$/, 'chunk_worker.js');
}

/**
 * Chunk binaries and their ETags, cached per chunk and rebuilt only when the
 * chunk's version moved. A worker pool re-encodes dirty chunks in batches in the
 * background (a round trip per 4 KB chunk would cost more than the chunk); a read
 * that finds its chunk stale still gets a fresh one, built inline.
 */
export class ChunkCache {
  private readonly cached: (Cached | undefined)[] = new Array(CHUNK_COUNT);
  private pool: Piscina | undefined;
  private refreshing = false;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly world: () => WorldState,
    options: { workers?: number; refresh_every_ms?: number; batch_chunks_max?: number } = {},
  ) {
    if ((options.workers ?? 1) > 0) {
      this.pool = new Piscina({
        filename: chunkWorkerModule(),
        minThreads: 1,
        maxThreads: options.workers ?? 1,
        idleTimeout: 60_000,
      });
      const batch = options.batch_chunks_max ?? 128;
      this.timer = setInterval(() => void this.refreshDirty(batch), options.refresh_every_ms ?? 200);
      this.timer.unref();
    }
  }

  /** The current binary of one chunk, building it now if the cache is behind: one object per chunk version. */
  get(chunk_x: number, chunk_y: number): { body: Uint8Array; etag: string } {
    const chunk = chunk_y * CHUNKS_PER_AXIS + chunk_x;
    const world = this.world();
    const version = world.chunk_version[chunk]!;
    const hit = this.cached[chunk];
    if (hit && hit.version === version) return hit;
    const built = builtChunk(chunkPlanes(world), chunk);
    // The kept object is the one returned, now and until the chunk changes: a reader may key what it derives on it.
    const kept = { version, body: built.body, etag: built.etag };
    this.cached[chunk] = kept;
    return kept;
  }

  /** Re-encodes up to batch_chunks_max stale chunks on the pool; results that went stale meanwhile are dropped. */
  async refreshDirty(batch_chunks_max = 128): Promise<number> {
    if (!this.pool || this.refreshing) return 0;
    const world = this.world();
    const dirty: number[] = [];
    for (let chunk = 0; chunk < CHUNK_COUNT && dirty.length < batch_chunks_max; chunk++) {
      const hit = this.cached[chunk];
      if (hit && hit.version !== world.chunk_version[chunk]) dirty.push(chunk);
    }
    if (dirty.length === 0) return 0;
    return this.buildOnPool(dirty);
  }

  /** Builds the given chunks on the pool in batches and caches what is still current. */
  async buildOnPool(chunks: number[], per_task = 64): Promise<number> {
    if (!this.pool) throw new Error('no chunk worker pool');
    const world = this.world();
    const versions = chunks.map((chunk) => world.chunk_version[chunk]!);
    const planes = {
      biome: world.terrain.biome.buffer,
      surface: world.surface.buffer,
      top_block: world.top_block.buffer,
      revealed: world.revealed.buffer,
    } as ChunkTask['planes'];
    this.refreshing = true;
    try {
      const tasks: Promise<BuiltChunk[]>[] = [];
      for (let i = 0; i < chunks.length; i += per_task)
        tasks.push(this.pool.run({ planes, chunks: chunks.slice(i, i + per_task) } satisfies ChunkTask));
      let stored = 0;
      const batches = await Promise.all(tasks);
      for (let task = 0; task < batches.length; task++) {
        const batch = batches[task]!;
        for (let i = 0; i < batch.length; i++) {
          // A task answers its chunks in the order given: the i-th of task t is chunks[t * per_task + i].
          const built = batch[i]!;
          const version = versions[task * per_task + i]!;
          if (world.chunk_version[built.chunk] !== version) continue;
          this.cached[built.chunk] = { version, body: built.body, etag: built.etag };
          stored++;
        }
      }
      return stored;
    } finally {
      this.refreshing = false;
    }
  }

  get has_pool(): boolean {
    return this.pool !== undefined;
  }

  async close(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    await this.pool?.destroy();
  }
}
