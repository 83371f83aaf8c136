import type { ServerResponse } from 'node:http';
import { CHUNK_COUNT, CHUNKS_PER_AXIS, type WorldState } from '../../engine/index.js';
import type { ChunkCache } from '../chunk_cache.js';
import type { EventStreamLimits } from './event_limits.js';
import { type SseSubscriber, SseSubscribers } from './sse_subscribers.js';

export const WORLD_CHANGES_PATH = '/api/v1/world/changes';

/** One event per durable tick that changed chunks: which, with the ETag each chunk read now answers. */
export interface ChunkChanges {
  /** The ledger head when the tick was durable. */
  seq: number;
  chunks: { chunk_x: number; chunk_y: number; etag: string }[];
}

/**
 * The world-change stream: after each durable tick, the chunks whose version moved (a
 * reveal, a dig, a placed or broken block) and their new ETags, so a map or an agent
 * refetches only those. It has no history: a client that connects, or reconnects after a
 * `dropped` event, revalidates the chunks it shows (an If-None-Match read answers 304 for
 * the unchanged ones) and then follows.
 */
export class WorldChanges {
  private readonly subscribers: SseSubscribers<SseSubscriber>;
  private readonly versions_seen: Uint32Array;

  constructor(
    limits: Readonly<EventStreamLimits>,
    clock: () => number,
    private readonly world: () => WorldState,
    private readonly chunks: Pick<ChunkCache, 'get'>,
    founded = true,
  ) {
    this.subscribers = new SseSubscribers(limits, clock, () => ({ revalidate: true }));
    // A society not founded yet (a replica that has not applied genesis) has no world: every chunk is at version 0.
    this.versions_seen = founded ? Uint32Array.from(world().chunk_version) : new Uint32Array(CHUNK_COUNT);
  }

  subscribe(res: ServerResponse): void {
    this.subscribers.add({ connection: this.subscribers.connect(res) });
  }

  /** After a durable tick with ledger head `seq`. With nobody listening it only notes the versions. */
  publish(seq: number): void {
    const versions = this.world().chunk_version;
    const changed: number[] = [];
    for (let chunk = 0; chunk < CHUNK_COUNT; chunk++) {
      if (versions[chunk] === this.versions_seen[chunk]) continue;
      this.versions_seen[chunk] = versions[chunk]!;
      changed.push(chunk);
    }
    if (changed.length === 0 || this.subscribers.size === 0) return;
    const changes: ChunkChanges = {
      seq,
      chunks: changed.map((chunk) => {
        const chunk_x = chunk % CHUNKS_PER_AXIS;
        const chunk_y = Math.floor(chunk / CHUNKS_PER_AXIS);
        return { chunk_x, chunk_y, etag: this.chunks.get(chunk_x, chunk_y).etag };
      }),
    };
    const event = `event: chunks\ndata: ${JSON.stringify(changes)}\n\n`;
    for (const subscriber of this.subscribers) this.subscribers.write(subscriber, event);
  }

  close(): void {
    this.subscribers.close();
  }
}
