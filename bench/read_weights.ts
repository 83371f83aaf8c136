import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { Agent } from 'node:http';
import { type Answered, HEAVY_MCP_BATCH, sendFrom } from './address_request.js';
import { firstJsonLine, processCpuMs } from './child.js';
import { readLoad } from './load.js';
import { startLoadSociety } from './load_society.js';

/**
 * npm run bench:reads [-- --server OTHER/dist/api/main.js]: what the costliest reads cost
 * the server, and what one client reading them at the allowed rate can take.
 *   1. CPU per request of each read, the read limit out of the way (16 connections).
 *   2. On the default limits: one client reading as fast as it is allowed (429 obeyed,
 *      Retry-After slept), the server's CPU over the run as a share of one core, while
 *      another address asks /healthz 20 times a second (its p50 and p99).
 * --server runs another build's server on the same society (the code before a change).
 */
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const { values } = parseArgs({
  options: {
    server: { type: 'string', default: here('../api/main.js') },
    seconds: { type: 'string', default: '15' },
    entries: { type: 'string', default: '26000' },
  },
});
const SECONDS = Number(values.seconds);

interface Target {
  name: string;
  path: string;
  /** A POST body (the MCP batch); GET when absent. */
  body?: string;
}

const TARGETS: Target[] = [
  { name: 'filtered explorer page, a type absent from the newest 5,000 entries', path: '/ledger?type=motion_vote' },
  { name: 'explorer page', path: '/ledger' },
  { name: 'status', path: '/api/v1/status' },
  { name: 'ledger page of 1,000 entries', path: '/api/v1/ledger?from=1&limit=1000' },
  { name: 'chunk', path: '/api/v1/world/chunk/16/16' },
  { name: 'MCP batch of 16 ledger_read of 1,000 entries', path: '/mcp', body: HEAVY_MCP_BATCH },
];

const UNLIMITED = {
  READS_PER_SECOND: '1000000',
  READ_BURST: '1000000',
  READ_CPU_SHARE: '64',
  READ_BYTES_PER_SECOND: '1073741824',
  CONNECTIONS_PER_ADDRESS: '100000',
};

interface Served {
  child: ChildProcess;
  url: string;
}

async function serve(data_dir: string, env: Record<string, string>): Promise<Served> {
  const child = spawn(process.execPath, [values.server], {
    env: { ...process.env, DATA_DIR: data_dir, PORT: '0', BACKUP_EVERY_SECONDS: '0', ...env },
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return { child, url: (await firstJsonLine(child, 'listening')).listening as string };
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** One request of a target from a local address. */
function send(url: string, target: Target, agent: Agent, local_address: string): Promise<Answered> {
  return sendFrom(url, target.path, agent, local_address, target.body);
}

/** CPU per request with the limit out of the way: GETs by the bench's load generator, the batch sent here back to back. */
async function cpuPerRequest(served: Served, target: Target): Promise<number> {
  if (!target.body) return (await readLoad(served.url, served.child.pid!, target.path, 3)).cpu_us / 1000;
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const before = processCpuMs(served.child.pid!)!;
  let count = 0;
  const until = performance.now() + 3000;
  while (performance.now() < until) {
    const { status } = await send(served.url, target, agent, '127.0.0.1');
    if (status !== 200) throw new Error(`${target.path} answered ${status}`);
    count++;
  }
  agent.destroy();
  return (processCpuMs(served.child.pid!)! - before) / count;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;

/** One client at the allowed rate (from 127.0.0.5) and a /healthz prober (127.0.0.6): the server's share of a core, and the prober's latencies. */
async function atAllowedRate(served: Served, target: Target) {
  const reader = new Agent({ keepAlive: true, maxSockets: 1 });
  const prober = new Agent({ keepAlive: true, maxSockets: 1 });
  const before = processCpuMs(served.child.pid!)!;
  const started = performance.now();
  const until = started + SECONDS * 1000;
  let answered = 0;
  let refused = 0;
  const reading = (async () => {
    while (performance.now() < until) {
      const { status, retry_after_s } = await send(served.url, target, reader, '127.0.0.5');
      if (status === 429) {
        refused++;
        await new Promise((resolve) => setTimeout(resolve, retry_after_s * 1000));
      } else answered++;
    }
  })();
  const latencies: number[] = [];
  while (performance.now() < until) {
    latencies.push((await send(served.url, { name: 'healthz', path: '/healthz' }, prober, '127.0.0.6')).ms);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  await reading;
  const wall_ms = performance.now() - started;
  const share = (processCpuMs(served.child.pid!)! - before) / wall_ms;
  reader.destroy();
  prober.destroy();
  latencies.sort((a, b) => a - b);
  return {
    share,
    answered_per_second: answered / (wall_ms / 1000),
    refused,
    healthz_p50_ms: percentile(latencies, 0.5),
    healthz_p99_ms: percentile(latencies, 0.99),
  };
}

const society = await startLoadSociety(1, { members: 100, ledger_entries: Number(values.entries) });
const data_dir = society.data_dir;
// Keep the data: stop the serving process only.
process.kill(society.pid, 'SIGTERM');
while (processCpuMs(society.pid) !== undefined) await new Promise((resolve) => setTimeout(resolve, 100));
try {
  console.log(`server ${values.server}, a ledger of ${society.ledger_seq} entries, ${SECONDS} s a run`);
  const unlimited = await serve(data_dir, UNLIMITED);
  const cpu: Record<string, number> = {};
  try {
    for (const target of TARGETS) cpu[target.name] = await cpuPerRequest(unlimited, target);
  } finally {
    await stop(unlimited.child);
  }
  const defaults = await serve(data_dir, {});
  try {
    console.log(
      '| read | server CPU per request | one client at the allowed rate: share of a core | its answers a second | another address: /healthz p50, p99 |',
    );
    console.log('|---|---|---|---|---|');
    for (const target of TARGETS) {
      const run = await atAllowedRate(defaults, target);
      console.log(
        `| ${target.name} | ${cpu[target.name]!.toFixed(2)} ms | ${run.share.toFixed(3)} (${(run.share / 0.25).toFixed(2)} of the 0.25 bound) | ${run.answered_per_second.toFixed(1)} | ${run.healthz_p50_ms.toFixed(1)} ms, ${run.healthz_p99_ms.toFixed(1)} ms |`,
      );
    }
  } finally {
    await stop(defaults.child);
  }
} finally {
  rmSync(dirname(data_dir), { recursive: true, force: true });
}
