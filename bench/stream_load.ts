import { spawn } from 'node:child_process';

import { cpus } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { actLoad, type ActLoadResult } from './act_load.js';
import { firstJsonLine } from './child.js';
import { startLoadSociety } from './load_society.js';
import { replaceResultsSection } from './results_section.js';
import { machineLine, median } from './measure.js';

/**
 * npm run bench:stream: the event stream under the signed load of bench:load. Each run
 * loads the server with 64 agents' signed acts (nonce handed over) twice, alternately
 * without and with 1,000 stream subscribers open (in their own process, bench/
 * stream_subscribers.ts): 10 following every entry, 990 each following one agent of the
 * load. Figures: the acts a second in both, their ratio, and the delivery latency from an
 * entry's tick to its subscriber (p50, p99). Writes the section "Event stream under load"
 * of bench/RESULTS.md. STREAM_RUNS (3), STREAM_SECONDS (5), STREAM_SUBSCRIBERS (1000).
 */
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const RUNS = Number(process.env.STREAM_RUNS ?? 3);
const SECONDS = Number(process.env.STREAM_SECONDS ?? 5);
const SUBSCRIBERS = Number(process.env.STREAM_SUBSCRIBERS ?? 1000);
const FOLLOWING_ALL = 10;
const CONCURRENCY = 64;

interface StreamRun {
  without: ActLoadResult;
  with: ActLoadResult;
  deliveries: number;
  dropped: number;
  p50_ms: number;
  p99_ms: number;
}

async function withSubscribers(society: Awaited<ReturnType<typeof startLoadSociety>>) {
  const child = spawn(
    process.execPath,
    [here('./stream_subscribers.js'), society.url, society.agents_file, String(SUBSCRIBERS), String(FOLLOWING_ALL)],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const lines: Record<string, unknown>[] = [];
  createInterface({ input: child.stdout! }).on('line', (line) => line.startsWith('{') && lines.push(JSON.parse(line)));
  await firstJsonLine(child);
  const load = await actLoad(society, 'handover', SECONDS, CONCURRENCY);
  // Let the last deliveries arrive before asking for the figures.
  await new Promise((resolve) => setTimeout(resolve, 500));
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
  const figures = lines.at(-1) as { deliveries: number; dropped: number; p50_ms: number; p99_ms: number };
  return { load, ...figures };
}

const society = await startLoadSociety(CONCURRENCY, { members: CONCURRENCY, ledger_entries: 0 });
const runs: StreamRun[] = [];
try {
  await actLoad(society, 'handover', 2, CONCURRENCY);
  for (let i = 1; i <= RUNS; i++) {
    const without = await actLoad(society, 'handover', SECONDS, CONCURRENCY);
    const streamed = await withSubscribers(society);
    runs.push({ without, with: streamed.load, ...streamed });
    console.log(
      `stream run ${i}/${RUNS}: ${Math.round(without.acts_per_second)} acts/s without subscribers, ${Math.round(streamed.load.acts_per_second)} with ${SUBSCRIBERS}; delivery p50 ${streamed.p50_ms} ms, p99 ${streamed.p99_ms} ms; ${streamed.deliveries} deliveries, ${streamed.dropped} dropped`,
    );
  }
} finally {
  await society.stop();
}

const m = (pick: (run: StreamRun) => number) => median(runs.map(pick));
const section = [
  '## Event stream under load (`npm run bench:stream`)',
  '',
  `Machine: ${machineLine()}; its ${cpus().length} cores are shared by the server, the load generator and the subscribers' process. ${RUNS} runs; medians. Each run loads the server with ${CONCURRENCY} agents' signed acts (nonce handed over) for ${SECONDS} s without subscribers, then for ${SECONDS} s with ${SUBSCRIBERS} streams open: ${FOLLOWING_ALL} following every entry, the others each following one agent of the load. Latency runs from the engine time an entry's tick began to its arrival at a subscriber: apply, durable commit, publish and the wire.`,
  '',
  '| acts/s without subscribers | acts/s with them | ratio | server CPU µs/act without / with | CPU ratio | delivery p50 (ms) | delivery p99 (ms) | deliveries/s | dropped |',
  '|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  `| ${Math.round(m((r) => r.without.acts_per_second))} | ${Math.round(m((r) => r.with.acts_per_second))} | ${m((r) => r.with.acts_per_second / r.without.acts_per_second).toFixed(2)} | ${Math.round(m((r) => r.without.server_cpu_us_per_act))} / ${Math.round(m((r) => r.with.server_cpu_us_per_act))} | ${m((r) => r.without.server_cpu_us_per_act / r.with.server_cpu_us_per_act).toFixed(2)} | ${m((r) => r.p50_ms)} | ${m((r) => r.p99_ms)} | ${Math.round(m((r) => r.deliveries / SECONDS))} | ${m((r) => r.dropped)} |`,
  '',
  `Per run, rate ratio and CPU ratio: ${runs.map((r) => `${(r.with.acts_per_second / r.without.acts_per_second).toFixed(2)} and ${(r.without.server_cpu_us_per_act / r.with.server_cpu_us_per_act).toFixed(2)} (p50 ${r.p50_ms} ms, p99 ${r.p99_ms} ms)`).join('; ')}. The subscribers' process takes its share of the two cores, so the rate ratio counts its work too; the CPU ratio is the server's own cost of the fan-out.`,
  '',
];

replaceResultsSection('## Event stream under load', section);
