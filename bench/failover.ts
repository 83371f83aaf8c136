import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKey } from '../client/keys.js';
import { TesseraClient } from '../client/sdk.js';
import { startChildServer, type ChildServer } from '../test/helpers/child_server.js';
import { machineLine, median } from './measure.js';
import { HAVE_NATS_SERVER, NatsCluster } from './nats_cluster.js';

/**
 * npm run bench:failover: how long agents of a replicated society go without a write
 * when its leader dies (SIGKILL) or stalls (SIGSTOP, as a machine swapping or a VM
 * paused does), with the default LEASE_TTL_MS. Three nats-server nodes and three
 * Tessera nodes on loopback, light signed load throughout. Each run signals the leader
 * and measures, from the signal: when a replica logs that it leads, and the first act
 * acknowledged to an SDK client pointed at a replica, one with the SDK as it is and one
 * whose fetch gives up on a request after REQUEST_TIMEOUT_MS (a stalled leader keeps a
 * request open: the SDK as it is waits for it). A stalled leader is resumed once both
 * clients have written (or after STALL_CAP_MS); it must then exit 75 (fenced). The node
 * signalled is started again as a replica before the next run. FAILOVER_RUNS (5) of each.
 * Prints a markdown table; nothing is written to RESULTS.md.
 */
const RUNS = Number(process.env.FAILOVER_RUNS ?? 5);
const TTL_MS = 10_000;
/** The lease is looked at once a second (checkEveryMs for the default ttl). */
const CHECK_MS = 1000;
const REQUEST_TIMEOUT_MS = 5000;
/** How long a stalled leader stays stopped at most, whatever the clients did meanwhile. */
const STALL_CAP_MS = 30_000;

if (!HAVE_NATS_SERVER) {
  console.error('bench:failover needs nats-server (Debian: apt-get install nats-server); nothing measured');
  process.exit(1);
}

interface Run {
  fault: 'SIGKILL' | 'SIGSTOP';
  /** Signal → a replica logs `leading`. */
  leading_ms: number;
  /** What that replica's catch-up took before it led (its log line). */
  caught_up_ms: number;
  /** Signal → first act acknowledged to the SDK client whose requests time out. */
  sdk_timeout_ms: number | undefined;
  /** Signal → first act acknowledged to the SDK client as it is (undefined: none before the stall ended). */
  sdk_default_ms: number | undefined;
  /** Whether the default client's first act came only after the stalled leader was resumed. */
  default_after_resume: boolean;
  /** How the signalled node ended: a killed one by SIGKILL, a stalled one resumed by exit 75 (fenced). */
  exit: string;
}

const folders = new Map<string, string>();
const folder = (name: string) => {
  if (!folders.has(name)) folders.set(name, mkdtempSync(join(tmpdir(), `tessera-failover-${name}-`)));
  return folders.get(name)!;
};
const nats = await NatsCluster.start(3);
const node = (name: string, role: 'leader' | 'replica') =>
  startChildServer({
    DATA_DIR: folder(name),
    LOG_URL: nats.url(),
    ROLE: role,
    NODE_ID: name,
    LEASE_TTL_MS: String(TTL_MS),
    REGISTRATIONS_PER_HOUR: '1000000',
    REGISTRATION_BURST: '1000000',
    NONCES_PER_SECOND: '100000',
    NONCE_BURST: '100000',
    READS_PER_SECOND: '100000',
    READ_BURST: '100000',
  });

const names = new Map<ChildServer, string>();
const started = async (name: string, role: 'leader' | 'replica') => {
  const server = await node(name, role);
  names.set(server, name);
  return server;
};
let leader = await started('a', 'leader');
copyFileSync(join(folder('a'), 'log.key'), join(folder('b'), 'log.key'));
copyFileSync(join(folder('a'), 'log.key'), join(folder('c'), 'log.key'));
let followers = [await started('b', 'replica'), await started('c', 'replica')];

const timed: typeof fetch = (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) });
const keys = await Promise.all(Array.from({ length: 6 }, () => generateKey()));
for (const [index, key] of keys.entries()) await new TesseraClient(leader.url, key).register(`failover${index}`);

/** An agent acting in a loop through `client()`, recording when each act was acknowledged. */
class Actor {
  readonly acks: number[] = [];
  errors = 0;
  running = true;

  constructor(client: () => TesseraClient) {
    void (async () => {
      while (this.running) {
        try {
          await client().registerBackupKey((await generateKey()).public_key);
          this.acks.push(performance.now());
        } catch {
          this.errors++;
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    })();
  }

  firstAfter(ms: number): number | undefined {
    return this.acks.find((at) => at > ms);
  }
}

// The two measured clients follow whichever node is a replica when a run starts; four agents keep ticks flowing.
let replica_url = followers[0]!.url;
const probe_timed = new Actor(() => new TesseraClient(replica_url, keys[0]!, timed));
const probe_default = new Actor(() => new TesseraClient(replica_url, keys[1]!));
const background = keys
  .slice(2)
  .map((key, index) => new Actor(() => new TesseraClient([leader, ...followers][index % 3]!.url, key, timed)));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const leadingLine = (server: ChildServer) =>
  server.output.map((line) => parse(line)).find((line) => line?.cluster === 'leading');

const runs: Run[] = [];
try {
  for (const fault of ['SIGKILL', 'SIGSTOP'] as const) {
    for (let i = 1; i <= RUNS; i++) {
      replica_url = followers[0]!.url;
      // Steady first: both probes wrote through the current replica lately.
      const steady_from = performance.now();
      while (probe_timed.firstAfter(steady_from) === undefined || probe_default.firstAfter(steady_from) === undefined)
        await sleep(50);
      await sleep(1000);
      const signalled = leader;
      const at = performance.now();
      signalled.signal(fault);
      let leading_ms: number | undefined;
      let next: ChildServer | undefined;
      let resumed_at: number | undefined;
      for (;;) {
        const now = performance.now();
        next ??= followers.find((server) => leadingLine(server));
        leading_ms ??= next ? now - at : undefined;
        const both = probe_timed.firstAfter(at) !== undefined && probe_default.firstAfter(at) !== undefined;
        if (fault === 'SIGSTOP' && resumed_at === undefined && next && (both || now - at > STALL_CAP_MS)) {
          resumed_at = now;
          signalled.signal('SIGCONT');
        }
        if (next && both && (fault === 'SIGKILL' || resumed_at !== undefined)) break;
        if (now - at > 120_000) throw new Error(`no failover within 120 s of the ${fault}`);
        await sleep(20);
      }
      const ended = await Promise.race([signalled.exited, sleep(30_000).then(() => undefined)]);
      if (!ended) signalled.signal('SIGKILL');
      const exit = ended ? String(ended.code ?? ended.signal) : 'still running 30 s after SIGCONT';
      const default_ack = probe_default.firstAfter(at);
      runs.push({
        fault,
        leading_ms: leading_ms!,
        caught_up_ms: Number(leadingLine(next)!.caught_up_ms),
        sdk_timeout_ms: probe_timed.firstAfter(at)! - at,
        sdk_default_ms: default_ack === undefined ? undefined : default_ack - at,
        default_after_resume: resumed_at !== undefined && default_ack !== undefined && default_ack > resumed_at,
        exit,
      });
      console.log(`${fault} run ${i}/${RUNS}:`, runs.at(-1));
      // The signalled node again, as a replica: the next run has three nodes.
      const again = await started(names.get(signalled)!, 'replica');
      followers = [...followers.filter((server) => server !== next), again];
      leader = next;
    }
  }
} finally {
  for (const actor of [probe_timed, probe_default, ...background]) actor.running = false;
  // The clients are not waited for: the SDK would go on sending to the nodes killed here for its whole budget.
  for (const server of [leader, ...followers]) await server.kill('SIGKILL');
  await nats.stop();
  for (const path of folders.values()) rmSync(path, { recursive: true, force: true });
}

const s = (ms: number) => (ms / 1000).toFixed(1);
const spread = (values: number[]) =>
  values.length ? `${s(median(values))} (${s(Math.min(...values))} to ${s(Math.max(...values))})` : 'none';
const lines = [
  `Machine: ${machineLine()}; three nats-server nodes, three Tessera nodes and the clients share its cores. LEASE_TTL_MS ${TTL_MS} (the default), ${RUNS} runs of each fault; seconds from the signal, median (min to max).`,
  '',
  '| fault | a replica leads | its catch-up | first act, SDK with a 5 s request timeout | first act, SDK as it is | bound: ttl + check + catch-up | signalled leader exited |',
  '|---|---:|---:|---:|---:|---:|---|',
  ...(['SIGKILL', 'SIGSTOP'] as const).map((fault) => {
    const of = runs.filter((run) => run.fault === fault);
    const defaults = of.flatMap((run) => (run.sdk_default_ms === undefined ? [] : [run.sdk_default_ms]));
    const after_resume = of.filter((run) => run.default_after_resume).length;
    const bound = Math.max(...of.map((run) => TTL_MS + CHECK_MS + run.caught_up_ms));
    const exits = [...new Set(of.map((run) => run.exit))].join(', ');
    return `| ${fault} | ${spread(of.map((run) => run.leading_ms))} | ${median(of.map((run) => run.caught_up_ms))} ms (${Math.min(...of.map((run) => run.caught_up_ms))} to ${Math.max(...of.map((run) => run.caught_up_ms))}) | ${spread(of.map((run) => run.sdk_timeout_ms!))} | ${spread(defaults)}${after_resume ? ` (${after_resume} of ${of.length} only after the stalled leader was resumed at ${s(STALL_CAP_MS)} s at most)` : ''} | ${s(bound)} | ${exits} |`;
  }),
  '',
  `Errors the clients met and rode over (fetch failures, 503 NOT_LEADER, refused nonces): SDK with timeout ${probe_timed.errors}, SDK as it is ${probe_default.errors}, background ${background.reduce((sum, actor) => sum + actor.errors, 0)}.`,
];
console.log(lines.join('\n'));
process.exit(0);

function parse(line: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
