import { benchTileReads } from './log.js';
import { median } from './measure.js';
import { printServerProfile } from './profile_summary.js';

/**
 * The tile rows of npm run bench alone, for work on the tile path without running the
 * whole bench: `node dist/bench/tiles.js [runs]` (3 by default) prints each run's
 * server/bare figures and the medians of the per-run ratios (requests per server
 * CPU-second, target 0.8). LOAD_PROFILE=DIR profiles the server, as in bench:load.
 */
const runs = Number(process.argv[2] ?? 3);
const ratios: Record<string, number[]> = {};
for (let run = 0; run < runs; run++) {
  for (const [path, r] of Object.entries(await benchTileReads())) {
    const ratio = r.bare_cpu_us / r.server_cpu_us;
    (ratios[path] ??= []).push(ratio);
    console.log(
      `run ${run + 1} ${path}: server ${r.server_cpu_us.toFixed(1)} µs/request (${Math.round(r.server)}/s), bare ${r.bare_cpu_us.toFixed(1)} µs (${Math.round(r.bare)}/s), ratio ${ratio.toFixed(2)}`,
    );
  }
}
for (const [path, list] of Object.entries(ratios))
  console.log(`median ${path}: ${median(list).toFixed(2)} (${list.map((r) => r.toFixed(2)).join(', ')})`);
if (process.env.LOAD_PROFILE) printServerProfile(process.env.LOAD_PROFILE, 40);
