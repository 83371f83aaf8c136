import { copyFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { generateKey, signText, type AgentKey } from '../../client/keys.js';
import {
  HEADER_AGENT_ID,
  HEADER_NEXT_NONCE,
  HEADER_NONCE,
  HEADER_SIGNATURE,
  canonicalBody,
  sha256Hex,
  signingString,
} from '../../client/protocol.js';
import { LmdbStore } from '../../engine/index.js';
import { LOG_KEY_FILE, STORE_FOLDER } from '../../api/data_folder.js';
import { OPEN_LIMITS } from '../../bench/open_limits.js';
import { verifyStore } from '../../api/store_verify.js';
import { NatsCluster } from '../../bench/nats_cluster.js';
import { startChildServer, type ChildServer } from './child_server.js';
import { tempDir } from './society.js';

/**
 * A replicated society as an operator runs one, for the tests that break it: nats-server
 * nodes on loopback and Tessera nodes as separate processes (dist/api/main.js), each in
 * its own data folder, with the request limits lifted so that load is never refused
 * for its rate.
 */
export class ProcessCluster {
  /** Every server started, the ones that ended too (a test reads their output and exit). */
  readonly servers: ChildServer[] = [];
  private readonly folders = new Map<string, string>();

  private constructor(
    readonly nats: NatsCluster,
    private readonly ttl_ms: number,
  ) {}

  static async start(options: { ttl_ms: number; nats_nodes?: number }): Promise<ProcessCluster> {
    return new ProcessCluster(await NatsCluster.start(options.nats_nodes ?? 3), options.ttl_ms);
  }

  /** The data folder of node `name`, made on first use. */
  folder(name: string): string {
    if (!this.folders.has(name)) this.folders.set(name, tempDir());
    return this.folders.get(name)!;
  }

  copyLogKey(from: string, to: string): void {
    copyFileSync(join(this.folder(from), LOG_KEY_FILE), join(this.folder(to), LOG_KEY_FILE));
  }

  /** Starts node `name` on its folder; `nats_nodes` orders the NATS servers it is given (every one by default). */
  async node(
    name: string,
    role: 'leader' | 'replica',
    options: { nats_nodes?: number[]; env?: Record<string, string> } = {},
  ): Promise<ChildServer> {
    const server = await startChildServer({
      DATA_DIR: this.folder(name),
      LOG_URL: this.nats.url(...(options.nats_nodes ?? [])),
      ROLE: role,
      NODE_ID: name,
      LEASE_TTL_MS: String(this.ttl_ms),
      ...OPEN_LIMITS,
      ...options.env,
    });
    this.servers.push(server);
    return server;
  }

  /** Every server still running. */
  running(): ChildServer[] {
    return this.servers.filter((server) => server.process.exitCode === null && server.process.signalCode === null);
  }

  /** Servers that exited by themselves (a code, not a test's signal), with how: a fenced node's 75, a diverged one's 65. */
  exitedByThemselves(): { url: string; code: number | null; signal: string | null }[] {
    return this.servers
      .filter((server) => server.process.exitCode !== null)
      .map((server) => ({ url: server.url, code: server.process.exitCode, signal: server.process.signalCode }));
  }

  /** What each node said about the cluster (its `cluster` log lines, one string each) and how it ended, for a run's record. */
  clusterLines(): string[] {
    return this.servers.flatMap((server) => [
      `${server.url} exit ${server.process.exitCode ?? server.process.signalCode ?? 'none'}:`,
      ...server.output
        .map((line) => safeJson(line))
        .filter((line) => line?.cluster !== undefined)
        .map((line) => {
          const { level: _level, time, cluster, node, ...rest } = line!;
          return `  ${String(time).slice(11)} ${node ?? ''} ${cluster} ${JSON.stringify(rest)}`;
        }),
    ]);
  }

  /** Stops every node with SIGTERM, then replays each named folder's store: the state hash of each. */
  async stopAndVerify(names: string[]): Promise<string[]> {
    for (const server of this.running()) await server.kill('SIGTERM');
    const hashes: string[] = [];
    for (const name of names) {
      const store = new LmdbStore(join(this.folder(name), STORE_FOLDER), { existing_only: true });
      const verified = await verifyStore(store, { proofs: true });
      await store.close();
      expect(verified.ok, `${name}'s store replays`).toBe(true);
      if (verified.ok) hashes.push(verified.state_hash);
    }
    return hashes;
  }

  async stop(): Promise<void> {
    // SIGKILL reaches a paused (SIGSTOP) node too.
    for (const server of this.servers) await server.kill('SIGKILL');
    await this.nats.stop();
    for (const folder of this.folders.values()) rmSync(folder, { recursive: true, force: true });
  }
}

/** The node whose log says it leads, among `servers`, waited for up to `within_ms`. */
export async function leaderAmong(servers: ChildServer[], within_ms: number): Promise<ChildServer> {
  const give_up = Date.now() + within_ms;
  for (;;) {
    for (const server of servers)
      if (server.output.some((line) => safeJson(line)?.cluster === 'leading')) return server;
    if (Date.now() > give_up) throw new Error('no node took the lease');
    await sleep(20);
  }
}

/** The index of the NATS node that leads a stream's replicas now. */
export async function streamLeader(nats: NatsCluster, stream: string): Promise<number> {
  const connection = await connect({ servers: nats.url().split(',') });
  try {
    const info = await (await jetstreamManager(connection)).streams.info(stream);
    return Number(info.cluster!.leader!.slice(1)) - 1;
  } finally {
    await connection.close();
  }
}

export async function status(url: string): Promise<{ ledger: { seq: number; hash: string } }> {
  return (await fetch(`${url}/api/v1/status`)).json() as Promise<{ ledger: { seq: number; hash: string } }>;
}

export type Entry = { seq: number; event_type: string; actor: string; data: Record<string, string> };

export async function ledgerOf(url: string): Promise<Entry[]> {
  const entries: Entry[] = [];
  for (;;) {
    const page = (await (await fetch(`${url}/api/v1/ledger?from=${entries.length + 1}&limit=500`)).json()) as {
      entries: Entry[];
    };
    if (page.entries.length === 0) return entries;
    entries.push(...page.entries);
  }
}

/** Waits until every server serves the same ledger head. */
export async function converged(servers: ChildServer[], within_ms = 30_000): Promise<{ seq: number; hash: string }> {
  let heads: { seq: number; hash: string }[] = [];
  await eventually(async () => {
    heads = await Promise.all(servers.map(async (server) => (await status(server.url)).ledger));
    for (const head of heads) expect(head).toEqual(heads[0]);
  }, within_ms);
  return heads[0]!;
}

/** One act a node answered 2xx: the backup key it registered (unique to it), the seq it was told, who answered. */
export interface Acknowledged {
  agent_id: string;
  backup_pubkey: string;
  seq: number;
  /** The origin that answered, after any redirect. */
  answered_by: string;
  sent_at_ms: number;
  at_ms: number;
}

/**
 * Every acknowledged act is on the ledger exactly once, at the seq it was acknowledged
 * with, by its agent; and no backup key is on the ledger twice, acknowledged or not
 * (each act registers a key of its own, so a second entry would be an act applied twice).
 */
export function expectAcknowledgedOnce(entries: Entry[], acknowledged: Acknowledged[]): void {
  const seqs_by_key = new Map<string, number[]>();
  for (const entry of entries) {
    if (entry.event_type !== 'key_backup_registered') continue;
    const key = String(entry.data.backup_pubkey);
    seqs_by_key.set(key, [...(seqs_by_key.get(key) ?? []), entry.seq]);
  }
  expect([...seqs_by_key.values()].filter((seqs) => seqs.length > 1)).toEqual([]);
  const missing = acknowledged.filter((act) => seqs_by_key.get(act.backup_pubkey)?.[0] !== act.seq);
  expect(missing).toEqual([]);
  for (const act of acknowledged) expect(entries[act.seq - 1]!.actor).toBe(act.agent_id);
}

/** How an agent of the load picks where to send: its URL and how long it waits for an answer. */
export type Route = (agent_index: number, attempt: number) => { url: string; timeout_ms: number };

/**
 * Agents replacing their backup key over and over with raw signed requests (no SDK
 * retries: every answer is the one the node gave), recording each 2xx answer with the
 * seq it names. A 503 OUTCOME_PENDING (the writer holds the act but cannot reach its
 * log) is followed by the very same request, as the answer asks. After any other failure
 * an agent moves on (attempt + 1) with a fresh nonce and a new key: the act whose answer
 * it lost may or may not be on the ledger, and is never sent again.
 */
export class SignedLoad {
  readonly acknowledged: Acknowledged[] = [];
  readonly errors: string[] = [];
  /** Requests waiting for an answer, by the URL they were sent to. */
  readonly in_flight = new Map<string, number>();
  /** Answers 503 OUTCOME_PENDING, each followed by the very same request again. */
  outcome_pending = 0;
  private running = true;
  private readonly done: Promise<unknown>;

  constructor(agents: AgentKey[], route: Route) {
    this.done = Promise.all(agents.map((key, index) => this.agent(key, index, route)));
  }

  /** Waits until `count` acts in all were acknowledged; fails the test, saying what went wrong, if not within `within_ms`. */
  async until(count: number, within_ms = 60_000, servers: ChildServer[] = []): Promise<void> {
    const started = Date.now();
    while (this.acknowledged.length < count && Date.now() - started < within_ms) await sleep(25);
    if (this.acknowledged.length < count)
      console.log(`load: ${this.acknowledged.length} of ${count} acknowledged in ${within_ms} ms`, {
        errors: this.errors.slice(-8),
        servers: servers.map((server) => server.output.slice(-6)),
      });
    expect(this.acknowledged.length).toBeGreaterThanOrEqual(count);
  }

  /** Waits until an act sent after `since_ms` was acknowledged (by `by`, if given): the time it took from `since_ms`. */
  async firstAckAfter(since_ms: number, within_ms: number, by?: string): Promise<number> {
    const matches = (act: Acknowledged) => act.sent_at_ms >= since_ms && (by === undefined || act.answered_by === by);
    for (;;) {
      const found = this.acknowledged.find(matches);
      if (found) return found.at_ms - since_ms;
      if (Date.now() - since_ms > within_ms) {
        console.log('no act acknowledged since', { since_ms, by, errors: this.errors.slice(-8) });
        throw new Error(
          `no act sent after ${since_ms} was acknowledged${by ? ` by ${by}` : ''} within ${within_ms} ms`,
        );
      }
      await sleep(25);
    }
  }

  async stop(): Promise<void> {
    this.running = false;
    await this.done;
  }

  /** What the agents met, for the record of a run: acts acknowledged, resends after OUTCOME_PENDING, errors by kind. */
  summary(): Record<string, number> {
    const counts: Record<string, number> = {
      acknowledged: this.acknowledged.length,
      outcome_pending: this.outcome_pending,
    };
    for (const error of this.errors) {
      const kind =
        /TimeoutError|aborted|ECONNREFUSED|ECONNRESET|other side closed|\d{3} [A-Z_]+/.exec(error)?.[0] ?? error;
      counts[kind] = (counts[kind] ?? 0) + 1;
    }
    return counts;
  }

  private async agent(key: AgentKey, index: number, route: Route): Promise<void> {
    let attempt = 0;
    let nonce: string | undefined;
    while (this.running) {
      const { url, timeout_ms } = route(index, attempt);
      const backup = await generateKey();
      this.in_flight.set(url, (this.in_flight.get(url) ?? 0) + 1);
      const sent_at_ms = Date.now();
      try {
        nonce ??= await fetchNonce(url, key.agent_id, timeout_ms);
        const send = await signedSender(url, '/api/v1/keys/backup', { backup_pubkey: backup.public_key }, key, nonce);
        let answer = await send(timeout_ms);
        // The writer holds the act but cannot make it durable yet: the very same request again gets its one outcome.
        for (let resends = 0; answer.status === 503 && resends < 10 && this.running; resends++) {
          const body = (await answer.json()) as { error?: string };
          // NOT_LEADER: nothing was done; the agent waits as asked, then acts anew.
          await sleep(Number(answer.headers.get('retry-after') ?? 1) * 1000);
          if (body.error !== 'OUTCOME_PENDING') throw new Error(`503 ${body.error}`);
          this.outcome_pending++;
          answer = await send(timeout_ms);
        }
        nonce = answer.headers.get(HEADER_NEXT_NONCE) ?? undefined;
        const body = (await answer.json()) as { ledger?: { first_seq: number }; error?: string };
        if (answer.status !== 200) throw new Error(`${answer.status} ${body.error}`);
        this.acknowledged.push({
          agent_id: key.agent_id,
          backup_pubkey: backup.public_key,
          seq: body.ledger!.first_seq,
          answered_by: new URL(answer.url).origin,
          sent_at_ms,
          at_ms: Date.now(),
        });
      } catch (error) {
        this.errors.push(`${url}: ${String(error)} ${String((error as { cause?: unknown }).cause ?? '')}`);
        nonce = undefined;
        attempt++;
        await sleep(50);
      } finally {
        this.in_flight.set(url, this.in_flight.get(url)! - 1);
      }
    }
  }
}

export async function fetchNonce(url: string, agent_id: string, timeout_ms: number): Promise<string> {
  const answer = await fetch(`${url}/api/v1/nonce?agent=${agent_id}`, { signal: AbortSignal.timeout(timeout_ms) });
  const body = (await answer.json()) as { nonce?: string; error?: string };
  if (!body.nonce) throw new Error(`nonce: ${answer.status} ${body.error}`);
  return body.nonce;
}

/** One signed POST, redirects followed (a replica's 307 keeps method and body), answered or timed out. */
export async function signedPost(
  url: string,
  path: string,
  body: unknown,
  key: AgentKey,
  nonce: string,
  timeout_ms: number,
): Promise<Response> {
  return (await signedSender(url, path, body, key, nonce))(timeout_ms);
}

/** A signed POST signed once, to be sent as it is, again and again: the server answers a resend with the first's outcome. */
export async function signedSender(
  url: string,
  path: string,
  body: unknown,
  key: AgentKey,
  nonce: string,
): Promise<(timeout_ms: number) => Promise<Response>> {
  const canonical = canonicalBody(body);
  const text = signingString({
    method: 'POST',
    path,
    agent_id: key.agent_id,
    nonce,
    body_sha256: await sha256Hex(canonical),
  });
  const headers = {
    [HEADER_AGENT_ID]: key.agent_id,
    [HEADER_NONCE]: nonce,
    [HEADER_SIGNATURE]: await signText(key, text),
    'content-type': 'application/json',
  };
  return (timeout_ms) =>
    fetch(url + path, { method: 'POST', headers, body: canonical, signal: AbortSignal.timeout(timeout_ms) });
}

export async function eventually(check: () => Promise<void>, within_ms = 15_000): Promise<void> {
  const give_up = Date.now() + within_ms;
  for (;;) {
    try {
      return await check();
    } catch (error) {
      if (Date.now() > give_up) throw error;
      await sleep(100);
    }
  }
}

export function safeJson(line: string): Record<string, unknown> | undefined {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export { OPEN_LIMITS };
