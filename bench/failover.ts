import { copyFileSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKey } from '../client/keys.js';
import { DEFAULT_SENDING_TIMEOUT_MS } from '../client/retry_policy.js';
import { TesseraClient } from '../client/sdk.js';
import { startChildServer, type ChildServer } from '../test/helpers/child_server.js';
import { machineLine, median } from './measure.js';
import { HAVE_NATS_SERVER, NatsCluster } from './nats_cluster.js';
import { OPEN_LIMITS } from './open_limits.js';

/**
 * npm run bench:failover: how long agents of a replicated society go without a write
 * when its leader dies (SIGKILL) or stalls (SIGSTOP, as a machine swapping or a VM
 * paused does), with the default LEASE_TTL_MS. Three nats-server nodes and three
 * Tessera nodes on loopback, light signed load throughout. Each run signals the leader
 * and measures, from the signal: when a replica logs that it leads, and when the first act
 * begun after the signal was acknowledged to an SDK client (the SDK as it is) pointed at
 * a replica. A stalled leader
 * keeps the requests it has open; the SDK gives each sending DEFAULT_SENDING_TIMEOUT_MS
 * (10 s) and then sends it again, so it needs no timeout of its own here. A stalled
 * leader is resumed once that client has written (or after STALL_CAP_MS); it must then
 * exit 75 (fenced). The node signalled is started again as a replica before the next run.
 * FAILOVER_RUNS (5) of each. Prints a markdown table; nothing is written to RESULTS.md.
 */
const RUNS = Number(process.env.FAILOVER_RUNS ?? 5);
const TTL_MS = 10_000;
/** The lease is looked at once a second (checkEveryMs for the default ttl). */
const CHECK_MS = 1000;
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
  /** Signal → first act acknowledged to the SDK client. */
  sdk_ms: number;
  /** Whether the SDK client's first act came only after the stalled leader was resumed. */
  after_resume: boolean;
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
    ...OPEN_LIMITS,
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

const keys = await Promise.all(Array.from({ length: 6 }, () => generateKey()));
for (const [index, key] of keys.entries()) await new TesseraClient(leader.url, key).register(`failover${index}`);

/** An agent acting in a loop through `client()`, recording when each act was begun and when acknowledged. */
class Actor {
  readonly acks: { sent: number; at: number }[] = [];
  errors = 0;
  /** What the SDK threw, by its first words, with how often. */
  readonly kinds = new Map<string, number>();
  running = true;

  constructor(client: () => TesseraClient) {
    void (async () => {
      while (this.running) {
        const sent = performance.now();
        try {
          await client().registerBackupKey((await generateKey()).public_key);
          this.acks.push({ sent, at: performance.now() });
        } catch (error) {
          this.errors++;
          const kind = String(error).slice(0, 60);
          this.kinds.set(kind, (this.kinds.get(kind) ?? 0) + 1);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      }
    })();
  }

  /**
   * When the first act begun after `ms` was acknowledged. An act begun before it is not
   * counted: the leader may have answered it just before it was signalled.
   */
  firstAfter(ms: number): number | undefined {
    return this.acks.find((ack) => ack.sent >= ms)?.at;
  }
}

// The measured client follows whichever node is a replica when a run starts; four agents keep ticks flowing.
let replica_url = followers[0]!.url;
const probe = new Actor(() => new TesseraClient(replica_url, keys[0]!));
const background = keys
  .slice(2)
  .map((key, index) => new Actor(() => new TesseraClient([leader, ...followers][index % 3]!.url, key)));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const leadingLine = (server: ChildServer) =>
  server.output.map((line) => parse(line)).find((line) => line?.cluster === 'leading');

const runs: Run[] = [];
try {
  for (const fault of ['SIGKILL', 'SIGSTOP'] as const) {
    for (let i = 1; i <= RUNS; i++) {
      replica_url = followers[0]!.url;
      // Steady first: the probe wrote through the current replica lately.
      const steady_from = performance.now();
      while (probe.firstAfter(steady_from) === undefined) await sleep(50);
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
        const wrote = probe.firstAfter(at) !== undefined;
        if (fault === 'SIGSTOP' && resumed_at === undefined && next && (wrote || now - at > STALL_CAP_MS)) {
          resumed_at = now;
          signalled.signal('SIGCONT');
        }
        if (next && wrote && (fault === 'SIGKILL' || resumed_at !== undefined)) break;
        if (now - at > 120_000) throw new Error(`no failover within 120 s of the ${fault}`);
        await sleep(20);
      }
      const ended = await Promise.race([signalled.exited, sleep(30_000).then(() => undefined)]);
      if (!ended) signalled.signal('SIGKILL');
      const exit = ended ? String(ended.code ?? ended.signal) : 'still running 30 s after SIGCONT';
      const ack = probe.firstAfter(at)!;
      runs.push({
        fault,
        leading_ms: leading_ms!,
        caught_up_ms: Number(leadingLine(next)!.caught_up_ms),
        sdk_ms: ack - at,
        after_resume: resumed_at !== undefined && ack > resumed_at,
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
  for (const actor of [probe, ...background]) actor.running = false;
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
  `| fault | a replica leads | its catch-up | first act, SDK as it is (${s(DEFAULT_SENDING_TIMEOUT_MS)} s a sending) | bound: ttl + check + catch-up | signalled leader exited |`,
  '|---|---:|---:|---:|---:|---|',
  ...(['SIGKILL', 'SIGSTOP'] as const).map((fault) => {
    const of = runs.filter((run) => run.fault === fault);
    const after_resume = of.filter((run) => run.after_resume).length;
    const bound = Math.max(...of.map((run) => TTL_MS + CHECK_MS + run.caught_up_ms));
    const exits = [...new Set(of.map((run) => run.exit))].join(', ');
    return `| ${fault} | ${spread(of.map((run) => run.leading_ms))} | ${median(of.map((run) => run.caught_up_ms))} ms (${Math.min(...of.map((run) => run.caught_up_ms))} to ${Math.max(...of.map((run) => run.caught_up_ms))}) | ${spread(of.map((run) => run.sdk_ms))}${after_resume ? ` (${after_resume} of ${of.length} only after the stalled leader was resumed at ${s(STALL_CAP_MS)} s at most)` : ''} | ${s(bound)} | ${exits} |`;
  }),
  '',
  `Acts an SDK call failed on (its budget spent, an outcome it could not learn, a refusal): measured client ${probe.errors}, background ${background.reduce((sum, actor) => sum + actor.errors, 0)}${errorKinds()}.`,
];
console.log(lines.join('\n'));
process.exit(0);

function errorKinds(): string {
  const kinds = new Map<string, number>();
  for (const actor of [probe, ...background])
    for (const [kind, count] of actor.kinds) kinds.set(kind, (kinds.get(kind) ?? 0) + count);
  return kinds.size ? ` (${[...kinds].map(([kind, count]) => `${count}× ${kind}`).join('; ')})` : '';
}

function parse(line: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
