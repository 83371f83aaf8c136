import { ChunkCache } from '../api/chunk_cache.js';
import { WorldImages } from '../api/world_image_routes.js';
import type { ReadContext } from '../engine/index.js';
import { createWorld, PLACED, setCell } from '../engine/world/world_state.js';
import type { TileView } from '../render/map/zoom.js';
import { median } from './measure.js';

/**
 * The server's CPU per world image (GET /world.png, api/world_image_routes.ts), measured on
 * the class the route calls, without HTTP: `node dist/bench/world_image.js [runs]` (5 by
 * default) prints each figure's median over the runs beside its ceiling, as a ratio
 * (under 1 is within it). The world is the worst case: every tile revealed, so the
 * whole-plane image covers 1,024 painted chunks.
 */
const runs = Number(process.argv[2] ?? 5);
const CEILINGS_MS = { cold_whole: 1500, cold_zoomed: 150, after_one_chunk: 150, kept: 1, not_modified: 1 };
const BURST_REQUESTS = 300;
/** A block placed every this many requests of the burst: the images under it go stale. */
const BURST_CHANGE_EVERY = 100;
const HIT_RATE_FLOOR = 0.9;

const WHOLE: TileView = { x: 1024, y: 1024, z: -2 };
const PLACES: TileView[] = [WHOLE, ...[0, 1, 2, 3, 4].map((i) => ({ x: 300 + i * 350, y: 900 + i * 60, z: 3 }))];

function society() {
  const world = createWorld('tessera-genesis');
  world.revealed.fill(0xff);
  const state = { world, agents: new Map(), aether: { masts: [], hub: null } };
  const chunks = new ChunkCache(() => world, { workers: 0 });
  const context = { state, chunks } as unknown as ReadContext;
  // A changed tile: a stone block on top, as world_place_block leaves it.
  const change = (x: number, y: number) => setCell(world, x, y, world.surface[y * 2048 + x]! + 1, 2 | PLACED);
  return { context, change };
}

function cpuMs<T>(work: () => T): number {
  const before = process.cpuUsage();
  work();
  const used = process.cpuUsage(before);
  return (used.user + used.system) / 1000;
}

const figures: Record<string, number[]> = {};
const record = (name: string, value: number) => (figures[name] ??= []).push(value);

for (let run = 0; run < runs; run++) {
  const { context, change } = society();
  const images = new WorldImages();
  // Chunk binaries are the chunk route's, built before any image asks for them.
  for (let cy = 0; cy < 32; cy++) for (let cx = 0; cx < 32; cx++) context.chunks.get(cx, cy);
  record(
    'cold_whole',
    cpuMs(() => images.answer(context, WHOLE, '')),
  );
  record(
    'cold_zoomed',
    cpuMs(() => images.answer(context, PLACES[1]!, '')),
  );
  change(1024, 1024);
  record(
    'after_one_chunk',
    cpuMs(() => images.answer(context, WHOLE, '')),
  );
  const { etag } = images.answer(context, WHOLE, '');
  record(
    'kept',
    cpuMs(() => images.answer(context, WHOLE, '')),
  );
  record(
    'not_modified',
    cpuMs(() => images.answer(context, WHOLE, etag)),
  );

  const burst = new WorldImages();
  const before = { ...burst.counts };
  for (let request = 0; request < BURST_REQUESTS; request++) {
    if (request > 0 && request % BURST_CHANGE_EVERY === 0) change(1024 + request, 1024);
    burst.answer(context, PLACES[request % PLACES.length]!, '');
  }
  const rendered = burst.counts.rendered - before.rendered;
  record('burst_hit_rate', 1 - rendered / BURST_REQUESTS);
  console.log(
    `run ${run + 1}: ${Object.entries(figures)
      .map(([name, values]) => `${name} ${values.at(-1)!.toFixed(name === 'burst_hit_rate' ? 3 : 2)}`)
      .join(', ')}`,
  );
}

for (const [name, values] of Object.entries(figures)) {
  const value = median(values);
  if (name === 'burst_hit_rate')
    console.log(
      `median ${name}: ${value.toFixed(3)} (floor ${HIT_RATE_FLOOR}, ratio ${(HIT_RATE_FLOOR / value).toFixed(2)})`,
    );
  else {
    const ceiling = CEILINGS_MS[name as keyof typeof CEILINGS_MS];
    console.log(
      `median ${name}: ${value.toFixed(2)} ms CPU (ceiling ${ceiling} ms, ratio ${(value / ceiling).toFixed(2)})`,
    );
  }
}
