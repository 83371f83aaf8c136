import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateRawSync } from 'node:zlib';
import { ChunkCache } from '../api/chunk_cache.js';
import { builtChunk } from '../api/chunk_worker.js';
import { Engine, type Submission } from '../engine/engine.js';
import { LmdbStore } from '../engine/store/lmdb_store.js';
import { findAct } from '../engine/catalogue.js';
import type { ReadAct } from '../engine/act.js';
import {
  CHUNK_COUNT,
  CHUNK_SIZE,
  DIRECTIONS,
  WORLD_SIZE,
  tileIndex,
  type Direction,
} from '../engine/world/geometry.js';
import { BIOME_WATER } from '../engine/world/materials.js';
import { createWorld, chunkPlanes, type WorldState } from '../engine/world/world_state.js';
import { BareLedger, bareAndFloorTasks, durableRates, type DurableRates, type EntryDraft } from './bare_ledger.js';
import { opsPerSecond } from './measure.js';
import { freshPubkey, memorySociety, registerMembers } from './members.js';

const BENCH_SEED = 'tessera-genesis';

/** A world whose every tile is revealed, as after long exploration. */
function revealedWorld(): WorldState {
  const world = createWorld(BENCH_SEED);
  world.revealed.fill(0xff);
  return world;
}

/** Chunk encode + SHA-256 against zlib's deflateRawSync of the same three layers, per chunk. */
export async function benchChunkEncode(): Promise<{ encode: number; deflate: number }> {
  const world = revealedWorld();
  const planes = chunkPlanes(world);
  // The chunks around the centre: varied terrain, the ones agents read most.
  const chunks = Array.from({ length: 64 }, (_, i) => (12 + Math.floor(i / 8)) * 32 + 12 + (i % 8));
  const raw = chunks.map((chunk) => {
    const cx = chunk % 32;
    const cy = Math.floor(chunk / 32);
    const bytes = new Uint8Array(3 * CHUNK_SIZE * CHUNK_SIZE);
    for (let local = 0; local < 4096; local++) {
      const index = tileIndex(cx * CHUNK_SIZE + (local % CHUNK_SIZE), cy * CHUNK_SIZE + Math.floor(local / CHUNK_SIZE));
      bytes[local] = planes.biome[index]!;
      bytes[4096 + local] = planes.surface[index]!;
      bytes[8192 + local] = planes.top_block[index]!;
    }
    return bytes;
  });
  let i = 0;
  const rates = await opsPerSecond([
    { name: 'encode', ops_per_call: 1, fn: () => builtChunk(planes, chunks[i++ & 63]!) },
    { name: 'deflate', ops_per_call: 1, fn: () => deflateRawSync(raw[i++ & 63]!) },
  ]);
  return { encode: rates.encode!, deflate: rates.deflate! };
}

/** All 1024 chunks of a fully revealed world, through the worker pool and inline (chunks/s). */
export async function benchAllChunks(): Promise<{ pool: number; inline: number }> {
  const world = revealedWorld();
  const planes = chunkPlanes(world);
  const cache = new ChunkCache(() => world, { workers: 2, refresh_every_ms: 3_600_000 });
  if (!cache.has_pool) throw new Error('the chunk worker is not built: run npm run build');
  const all = Array.from({ length: CHUNK_COUNT }, (_, chunk) => chunk);
  try {
    await cache.buildOnPool(all); // start the threads
    const rates = await opsPerSecond(
      [
        {
          name: 'pool',
          ops_per_call: CHUNK_COUNT,
          fn: async () => {
            world.chunk_version.forEach((_, chunk) => world.chunk_version[chunk]!++);
            await cache.buildOnPool(all);
          },
        },
        { name: 'inline', ops_per_call: CHUNK_COUNT, fn: () => all.forEach((chunk) => builtChunk(planes, chunk)) },
      ],
      2000,
    );
    return { pool: rates.pool!, inline: rates.inline! };
  } finally {
    await cache.close();
  }
}

const moves_per_call = 1024;

/**
 * world_move through the whole engine with 10,000 members, durable, beside the bare
 * limit: the hash and put of the same agent_moved and ap_spent entries. Each member walks back and
 * forth between two land tiles, so the AP, reach and terrain checks all run.
 */
export async function benchMoves(agent_count = 10_000): Promise<DurableRates> {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-bench-moves-'));
  let now = Date.parse('2026-11-21T10:00:00Z');
  const store = new LmdbStore(join(dir, 'engine'));
  const engine = await Engine.open(
    store,
    {
      founder_pubkey: freshPubkey(),
      world_seed: BENCH_SEED,
      params: { ap_at_registration: 1_000_000, ap_cap: 1_000_000 },
    },
    { clock: () => (now += 1) },
  );
  const bare = new BareLedger(dir);
  try {
    const ids = await registerMembers(engine, agent_count, 'walker');
    const world = engine.state.world;
    const opposite: Record<Direction, Direction> = {
      n: 's',
      ne: 'sw',
      e: 'w',
      se: 'nw',
      s: 'n',
      sw: 'ne',
      w: 'e',
      nw: 'se',
    };
    const walkers = ids.map((id) => {
      const agent = world.agents.get(id)!;
      const direction = (Object.keys(DIRECTIONS) as Direction[]).find((d) => {
        const [dx, dy] = DIRECTIONS[d];
        const [x, y] = [agent.x + dx, agent.y + dy];
        return (
          x >= 0 && y >= 0 && x < WORLD_SIZE && y < WORLD_SIZE && world.terrain.biome[tileIndex(x, y)] !== BIOME_WATER
        );
      })!;
      return { id, next: direction, back: opposite[direction] };
    });
    const proof = {
      method: 'POST',
      path: '/api/v1/act',
      nonce: '',
      body: '',
      signature: randomBytes(64).toString('base64url'),
    };
    let cursor = 0;
    let batch: Submission[] = [];
    const prepare = () => {
      batch = Array.from({ length: moves_per_call }, () => {
        const walker = walkers[cursor++ % walkers.length]!;
        const path = [walker.next];
        [walker.next, walker.back] = [walker.back, walker.next];
        return {
          act: 'world_move',
          actor: walker.id,
          payload: { path },
          proof: {
            ...proof,
            nonce: randomBytes(18).toString('base64url'),
            body: `{"act":"world_move","challenge_id":null,"payload":{"path":["${path[0]}"]},"puzzle_solution":null}`,
          },
        };
      });
    };
    // A move writes two entries: agent_moved, and the ap_spent behind it.
    const draft = (): EntryDraft[] => {
      prepare();
      return batch.flatMap((move, index) => [
        {
          at_ms: now,
          event: {
            event_type: 'agent_moved',
            actor: move.actor,
            // In the order the engine writes it (sorted keys, engine/acts/world_move.ts): the text is the same either way, its making is not.
            data: {
              agent_id: move.actor,
              ap_spent: 1,
              from: { x: 1000, y: 1000 },
              path: (move.payload as { path: string[] }).path,
              to: { x: 1001, y: 1000 },
            },
          },
          proof: move.proof,
          action: move,
        },
        {
          at_ms: now,
          event: {
            event_type: 'ap_spent',
            actor: move.actor,
            data: { act: 'world_move', amount: 1, for_seq: 2 * index + 1 },
          },
        },
      ]);
    };
    const rates = await opsPerSecond([
      {
        name: 'engine',
        ops_per_call: moves_per_call,
        beforeEach: prepare,
        fn: async () => {
          const outcomes = await Promise.all(batch.map((move) => engine.submit(move)));
          if (!outcomes[0]!.ok) throw new Error(`move refused: ${outcomes[0]!.code}`);
        },
      },
      ...bareAndFloorTasks(bare, moves_per_call, draft),
    ]);
    return durableRates(rates);
  } finally {
    await store.close();
    await bare.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * world_look (radius 2) by every member in turn in a society of 10,000 members, against
 * the same look in a society of 100: who stands near is read from the tiles around the
 * looker (engine/world/agent_places.ts), not from every member. Both societies as
 * registration leaves them, the newest members around the spawn point, so a look near
 * it lists more members in the larger one.
 */
export async function benchLooks(): Promise<{ large: number; small: number }> {
  const look = findAct('world_look') as ReadAct;
  const payload = look.payload.parse({});
  const societies = await Promise.all(
    [10_000, 100].map(async (members) => {
      const { engine, ids } = await memorySociety(members, 'looker');
      let cursor = 0;
      return {
        engine,
        fn: () => {
          const seen = engine.read(look, ids[cursor++ % ids.length]!, payload);
          if (!seen.ok) throw new Error(`look refused: ${seen.code}`);
        },
      };
    }),
  );
  try {
    const rates = await opsPerSecond([
      { name: 'large', ops_per_call: 1, fn: societies[0]!.fn },
      { name: 'small', ops_per_call: 1, fn: societies[1]!.fn },
    ]);
    return { large: rates.large!, small: rates.small! };
  } finally {
    await Promise.all(societies.map((society) => society.engine.drain()));
  }
}
