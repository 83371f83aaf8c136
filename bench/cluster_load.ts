import { spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { actLoad, type ActLoadResult } from './act_load.js';
import { firstJsonLine, processCpuMs } from './child.js';
import { readLoad } from './load.js';
import { startLoadSociety } from './load_society.js';
import { replaceResultsSection } from './results_section.js';
import { machineLine, median, percentile } from './measure.js';
import { HAVE_NATS_SERVER, NatsCluster } from './nats_cluster.js';
import { ReplicaLagProbe } from './replica_lag.js';

/**
 * npm run bench:cluster: what replication costs and what it buys, on this machine. A
 * three-node NATS cluster on loopback (Debian's nats-server), a society served by a
 * leader appending every tick to it and by one read replica, and the same society on
 * the embedded default beside them. Each run: the 64-agent signed load of bench:load
 * (nonce handed over) against the embedded server, then against the leader while the
 * replica's lag is measured from both nodes' event streams; then reads against the
 * leader and the replica, idle, per server CPU-second. CLUSTER_RUNS (3), CLUSTER_SECONDS
 * (5). Writes the section "Replicated log" of bench/RESULTS.md.
 */
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const RUNS = Number(process.env.CLUSTER_RUNS ?? 3);
const SECONDS = Number(process.env.CLUSTER_SECONDS ?? 5);
const CONCURRENCY = 64;
const READS = [
  { path: '/api/v1/world/chunk/16/16', revalidate: true },
  { path: '/api/v1/world/tile/1024/1024' },
  { path: '/api/v1/ledger?from=1&limit=100' },
  { path: '/ledger' },
];

if (!HAVE_NATS_SERVER) {
  console.error('bench:cluster needs nats-server (Debian: apt-get install nats-server); nothing measured');
  process.exit(1);
}

interface ClusterRun {
  embedded: ActLoadResult;
  replicated: ActLoadResult;
  nats_cpu_us_per_act: number;
  replica_cpu_us_per_act: number;
  lag_p50_ms: number;
  lag_p99_ms: number;
  lagged_entries: number;
}

const nats = await NatsCluster.start(3);
const embedded = await startLoadSociety(CONCURRENCY, { members: CONCURRENCY, ledger_entries: 0 });
const leader = await startLoadSociety(CONCURRENCY, { members: CONCURRENCY, ledger_entries: 0 }, undefined, {
  LOG_URL: nats.url(),
  ROLE: 'leader',
  NODE_ID: 'bench-leader',
});
const replica_dir = mkdtempSync(join(tmpdir(), 'tessera-bench-replica-'));
copyFileSync(join(leader.data_dir, 'log.key'), join(replica_dir, 'log.key'));
const replica: ChildProcess = spawn(process.execPath, [here('../api/main.js')], {
  env: {
    ...process.env,
    DATA_DIR: replica_dir,
    PORT: '0',
    LOG_URL: nats.url(1, 2, 0),
    ROLE: 'replica',
    NODE_ID: 'bench-replica',
    READS_PER_SECOND: '1000000',
    READ_CPU_SHARE: '64',
    READ_BYTES_PER_SECOND: '1073741824',
    READ_BURST: '1000000',
    EVENT_STREAMS_PER_ADDRESS: '100000',
    CONNECTIONS_PER_ADDRESS: '100000',
  },
  stdio: ['ignore', 'pipe', 'ignore'],
});
const replica_url = (await firstJsonLine(replica, 'listening')).listening as string;

const runs: ClusterRun[] = [];
const reads: {
  path: string;
  leader_rps: number;
  replica_rps: number;
  leader_cpu_us: number;
  replica_cpu_us: number;
}[][] = [];
try {
  await actLoad(embedded, 'handover', 2, CONCURRENCY);
  await actLoad(leader, 'handover', 2, CONCURRENCY);
  for (let i = 1; i <= RUNS; i++) {
    // One event-stream reader on the embedded server too, as the lag probe has one on the leader: the same work on both.
    const embedded_head = ((await (await fetch(`${embedded.url}/api/v1/status`)).json()) as { ledger: { seq: number } })
      .ledger.seq;
    const reader = new ReplicaLagProbe(embedded.url, embedded.url, embedded_head + 1);
    const embedded_run = await actLoad(embedded, 'handover', SECONDS, CONCURRENCY);
    await reader.stop();
    const head = ((await (await fetch(`${leader.url}/api/v1/status`)).json()) as { ledger: { seq: number } }).ledger
      .seq;
    const probe = new ReplicaLagProbe(leader.url, replica_url, head + 1);
    const nats_before = nats.pids().map((pid) => processCpuMs(pid) ?? 0);
    const replica_before = processCpuMs(replica.pid!) ?? 0;
    const replicated = await actLoad(leader, 'handover', SECONDS, CONCURRENCY);
    const nats_ms = nats.pids().reduce((sum, pid, index) => sum + (processCpuMs(pid) ?? 0) - nats_before[index]!, 0);
    // The last ticks reach the replica a moment after the load ends.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const replica_ms = (processCpuMs(replica.pid!) ?? 0) - replica_before;
    const lags = (await probe.stop()).sort((a, b) => a - b);
    const run: ClusterRun = {
      embedded: embedded_run,
      replicated,
      nats_cpu_us_per_act: (nats_ms * 1000) / replicated.acts,
      replica_cpu_us_per_act: (replica_ms * 1000) / replicated.acts,
      lag_p50_ms: percentile(lags, 0.5),
      lag_p99_ms: percentile(lags, 0.99),
      lagged_entries: lags.length,
    };
    runs.push(run);
    console.log(
      `cluster run ${i}/${RUNS}: embedded ${Math.round(embedded_run.acts_per_second)} acts/s (p99 ${embedded_run.p99_ms.toFixed(1)} ms, ${Math.round(embedded_run.server_cpu_us_per_act)} µs CPU/act); replicated ${Math.round(replicated.acts_per_second)} acts/s (p99 ${replicated.p99_ms.toFixed(1)} ms, ${Math.round(replicated.server_cpu_us_per_act)} µs CPU/act, NATS ${Math.round(run.nats_cpu_us_per_act)} µs/act, replica ${Math.round(run.replica_cpu_us_per_act)} µs/act); replica lag p50 ${run.lag_p50_ms.toFixed(1)} ms, p99 ${run.lag_p99_ms.toFixed(1)} ms over ${lags.length} entries`,
    );
    const read_run = [];
    for (const target of READS) {
      const etag = target.revalidate
        ? ((await fetch(`${leader.url}${target.path}`)).headers.get('etag') ?? undefined)
        : undefined;
      const on_leader = await readLoad(leader.url, leader.pid, target.path, Math.min(SECONDS, 3), etag);
      const on_replica = await readLoad(replica_url, replica.pid!, target.path, Math.min(SECONDS, 3), etag);
      read_run.push({
        path: `${target.path}${target.revalidate ? ' (If-None-Match)' : ''}`,
        leader_rps: on_leader.rps,
        replica_rps: on_replica.rps,
        leader_cpu_us: on_leader.cpu_us,
        replica_cpu_us: on_replica.cpu_us,
      });
    }
    reads.push(read_run);
    console.log(
      `reads run ${i}/${RUNS}: ${read_run.map((r) => `${r.path} ${Math.round(1e6 / r.leader_cpu_us)} vs ${Math.round(1e6 / r.replica_cpu_us)} per CPU-s`).join('; ')}`,
    );
  }
} finally {
  replica.kill('SIGTERM');
  await new Promise((resolve) => replica.once('exit', resolve));
  rmSync(replica_dir, { recursive: true, force: true });
  await leader.stop();
  await embedded.stop();
  await nats.stop();
}

const m = (pick: (run: ClusterRun) => number) => median(runs.map(pick));
const whole = (value: number) => String(Math.round(value));
const section = [
  '## Replicated log (`npm run bench:cluster`)',
  '',
  `Machine: ${machineLine()}; its ${cpus().length} cores are shared by the embedded server, the leader, the replica, three nats-server nodes and the load generator. ${RUNS} runs; medians. Each run sends the ${CONCURRENCY}-agent signed load of bench:load (nonce handed over) for ${SECONDS} s to the embedded server, then to the leader, whose every tick is stored by a quorum of the three NATS nodes (file storage, three replicas) before its local commit. The replica's lag is the time from an entry's arrival on the leader's event stream to its arrival on the replica's (negative when the replica, which applies a tick as soon as the stream holds it, publishes it before the leader has committed it locally).`,
  '',
  '| | embedded | replicated (leader) | ratio |',
  '|---|---:|---:|---:|',
  `| signed acts/s | ${whole(m((r) => r.embedded.acts_per_second))} | ${whole(m((r) => r.replicated.acts_per_second))} | ${m((r) => r.replicated.acts_per_second / r.embedded.acts_per_second).toFixed(2)} |`,
  `| p50 / p99 (ms) | ${m((r) => r.embedded.p50_ms).toFixed(1)} / ${m((r) => r.embedded.p99_ms).toFixed(1)} | ${m((r) => r.replicated.p50_ms).toFixed(1)} / ${m((r) => r.replicated.p99_ms).toFixed(1)} | ${m((r) => r.replicated.p99_ms / r.embedded.p99_ms).toFixed(2)} (p99) |`,
  `| server CPU µs/act | ${whole(m((r) => r.embedded.server_cpu_us_per_act))} | ${whole(m((r) => r.replicated.server_cpu_us_per_act))} | ${m((r) => r.embedded.server_cpu_us_per_act / r.replicated.server_cpu_us_per_act).toFixed(2)} |`,
  `| NATS CPU µs/act (three nodes together) | | ${whole(m((r) => r.nats_cpu_us_per_act))} | |`,
  `| replica CPU µs/act (following: replay, signature checks, commit, its event stream) | | ${whole(m((r) => r.replica_cpu_us_per_act))} | |`,
  '',
  `All the CPU one replicated act costs on this machine (leader, NATS nodes, one replica) is ${whole(m((r) => r.replicated.server_cpu_us_per_act + r.nats_cpu_us_per_act + r.replica_cpu_us_per_act))} µs against the embedded server's ${whole(m((r) => r.embedded.server_cpu_us_per_act))}: here every process shares two cores, so the leader's rate pays for the NATS nodes' and the replica's work too. On machines of their own the leader pays only its own row (a CPU ratio of ${m((r) => r.embedded.server_cpu_us_per_act / r.replicated.server_cpu_us_per_act).toFixed(2)}), and the quorum round trip, which group commit hides under load; each replica brings its own cores for reads (the table below), so reads scale with the number of replicas while acts stay bounded by the one writer.`,
  '',
  `Replica lag under that load: p50 **${m((r) => r.lag_p50_ms).toFixed(1)} ms**, p99 **${m((r) => r.lag_p99_ms).toFixed(1)} ms** (${whole(m((r) => r.lagged_entries))} entries a run). Per run (acts/s ratio, p99 ratio, lag p50/p99): ${runs.map((r) => `${(r.replicated.acts_per_second / r.embedded.acts_per_second).toFixed(2)}, ${(r.replicated.p99_ms / r.embedded.p99_ms).toFixed(2)}, ${r.lag_p50_ms.toFixed(1)}/${r.lag_p99_ms.toFixed(1)} ms`).join('; ')}.`,
  '',
  '| public read (idle nodes, 16 connections) | leader reads per CPU-second | replica reads per CPU-second | replica / leader |',
  '|---|---:|---:|---:|',
  ...READS.map((_, index) => {
    const rows = reads.map((run) => run[index]!);
    const leader_per_cpu = median(rows.map((row) => 1e6 / row.leader_cpu_us));
    const replica_per_cpu = median(rows.map((row) => 1e6 / row.replica_cpu_us));
    return `| \`${rows[0]!.path}\` | ${whole(leader_per_cpu)} | ${whole(replica_per_cpu)} | ${median(rows.map((row) => row.leader_cpu_us / row.replica_cpu_us)).toFixed(2)} |`;
  }),
  '',
];

replaceResultsSection('## Replicated log', section);
