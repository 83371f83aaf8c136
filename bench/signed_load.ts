import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { keyFromSeed } from '../client/keys.js';
import { TesseraClient } from '../client/sdk.js';
import { machineLine, median } from './measure.js';
import { firstJsonLine, processCpuMs } from './child.js';

/**
 * npm run bench:load: signed acts over the wire. The real server (embedded store,
 * durable commits) and a bare node:http server that only parses and verifies (the
 * ceiling) each take the same load from a generator in another process: 64 agents,
 * each fetching a fresh nonce and sending a signed act (world_move, vote_cast) back to
 * back. Median of several runs; the section "Load run" of bench/RESULTS.md.
 */
const run = promisify(execFile);
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const RUNS = Number(process.env.LOAD_RUNS ?? 3);
const SECONDS = Number(process.env.LOAD_SECONDS ?? 5);
const CONCURRENCY = 64;

interface LoadResult {
  acts: number;
  acts_per_second: number;
  p50_ms: number;
  p99_ms: number;
  statuses: Record<string, number>;
  /** CPU the generator spent per act, and the server (all its threads) per act. */
  generator_cpu_us_per_act: number;
  server_cpu_us_per_act: number;
}

async function load(url: string, server_pid: number, agents_file: string, motion_id: string): Promise<LoadResult> {
  const cpu_before_ms = processCpuMs(server_pid) ?? Number.NaN;
  const { stdout } = await run(process.execPath, [here('./signed_load_client.js'), url, agents_file, String(SECONDS), String(CONCURRENCY), motion_id], { maxBuffer: 1 << 20 });
  const result = JSON.parse(stdout) as Omit<LoadResult, 'server_cpu_us_per_act'>;
  const server_cpu_ms = (processCpuMs(server_pid) ?? Number.NaN) - cpu_before_ms;
  return { ...result, server_cpu_us_per_act: (server_cpu_ms * 1000) / result.acts };
}

const dir = mkdtempSync(join(tmpdir(), 'tessera-signed-load-'));
const genesis_file = join(dir, 'genesis.json');
writeFileSync(genesis_file, JSON.stringify({ params: { ap_at_registration: 1_000_000, ap_cap: 1_000_000, voting_window_seconds: 30 * 86_400 } }));
// LOAD_PROFILE=DIR writes a CPU profile of the server under load into DIR (--cpu-prof).
const profile_args = process.env.LOAD_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.LOAD_PROFILE}`] : [];
const server = spawn(process.execPath, [...profile_args, here('../api/main.js')], { env: { ...process.env, DATA_DIR: join(dir, 'data'), PORT: '0', GENESIS_FILE: genesis_file, READS_PER_SECOND: '1000000', READ_BURST: '1000000', BACKUP_EVERY_SECONDS: '0' }, stdio: ['ignore', 'pipe', 'ignore'] });
let bare: ChildProcess | undefined;
try {
  const url = (await firstJsonLine(server)).listening as string;
  const agents = await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as { kty: string; crv: string; x: string; d: string };
      const key = await keyFromSeed(Buffer.from(jwk.d, 'base64url'));
      return { agent_id: key.agent_id, jwk, key };
    }),
  );
  for (const [i, agent] of agents.entries()) await new TesseraClient(url, agent.key).register(`loader-${i}`);
  const author = new TesseraClient(url, agents[0]!.key);
  const motion_id = (await author.act<{ motion_id: string }>('motion_propose', { title: 'The load motion', body: '', changes: [] })).result.motion_id;
  await author.act('motion_open', { motion_id });
  const agents_file = join(dir, 'agents.json');
  writeFileSync(agents_file, JSON.stringify(agents.map(({ agent_id, jwk }) => ({ agent_id, jwk }))));
  bare = spawn(process.execPath, [here('./bare_signed_server.js'), agents_file], { stdio: ['ignore', 'pipe', 'inherit'] });
  const bare_url = `http://127.0.0.1:${(await firstJsonLine(bare)).port as number}`;

  const samples: { server: LoadResult; bare: LoadResult }[] = [];
  for (let i = 1; i <= RUNS; i++) {
    samples.push({ server: await load(url, server.pid!, agents_file, motion_id), bare: await load(bare_url, bare.pid!, agents_file, motion_id) });
    const last = samples.at(-1)!;
    console.log(`run ${i}/${RUNS}: server ${Math.round(last.server.acts_per_second)} acts/s (p50 ${last.server.p50_ms.toFixed(1)} ms, p99 ${last.server.p99_ms.toFixed(1)} ms, ${Math.round(last.server.server_cpu_us_per_act)} µs CPU/act, generator ${Math.round(last.server.generator_cpu_us_per_act)} µs/act) ${JSON.stringify(last.server.statuses)}; bare ${Math.round(last.bare.acts_per_second)} acts/s (${Math.round(last.bare.server_cpu_us_per_act)} µs CPU/act)`);
  }
  // LOAD_METRICS=FILE saves the server's /metrics after the runs (tick apply and commit times).
  if (process.env.LOAD_METRICS) writeFileSync(process.env.LOAD_METRICS, await (await fetch(`${url}/metrics`)).text());
  const m = (pick: (s: { server: LoadResult; bare: LoadResult }) => number) => median(samples.map(pick));
  const section = [
    '## Load run: signed acts over HTTP (`npm run bench:load`)',
    '',
    `Machine: ${machineLine()} (${cpus().length} cores shared by server, generator and ceiling). ${RUNS} runs of ${SECONDS} s, ${CONCURRENCY} agents, each fetching a nonce and sending a signed act (world_move and vote_cast alternating), back to back; medians.`,
    '',
    '| | acts/s | p50 (ms) | p99 (ms) |',
    '|---|---:|---:|---:|',
    `| the server: signature, nonce, engine, durable LMDB commit | ${Math.round(m((s) => s.server.acts_per_second))} | ${m((s) => s.server.p50_ms).toFixed(1)} | ${m((s) => s.server.p99_ms).toFixed(1)} |`,
    `| ceiling: bare node:http, parse + canonicalise + verify only | ${Math.round(m((s) => s.bare.acts_per_second))} | ${m((s) => s.bare.p50_ms).toFixed(1)} | ${m((s) => s.bare.p99_ms).toFixed(1)} |`,
    `| ratio to the ceiling | ${m((s) => s.server.acts_per_second / s.bare.acts_per_second).toFixed(2)} | | |`,
    '',
    `Statuses the server answered, last run: ${JSON.stringify(samples.at(-1)!.server.statuses)} (409s are moves into water or votes refused by the rules: full round trips all the same).`,
    '',
  ].join('\n');
  const results_file = here('../../bench/RESULTS.md');
  const current = readFileSync(results_file, 'utf8');
  const kept = current.includes('## Load run') ? current.slice(0, current.indexOf('## Load run')) : `${current.trimEnd()}\n\n`;
  writeFileSync(results_file, kept + section);
  console.log(section);
} finally {
  server.kill('SIGTERM');
  bare?.kill('SIGTERM');
  await new Promise((resolve) => server.once('exit', resolve));
  rmSync(dir, { recursive: true, force: true });
}
