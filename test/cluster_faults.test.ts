import { afterEach, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { generateKey, type AgentKey } from '../client/keys.js';
import { openNote, parseNote } from '../client/tlog/note.js';
import { noteVerifier, parseVerifierKey } from '../client/tlog/note_keys.js';
import { LOG_VKEY_KEY } from '../api/cluster/log_identity.js';
import { createLogKey, loadLogKey } from '../api/log/log_key.js';
import { HAVE_NATS_SERVER } from '../bench/nats_cluster.js';
import { ChildServerExitedError, type ChildExit, type ChildServer } from './helpers/child_server.js';
import {
  converged,
  expectAcknowledgedOnce,
  fetchNonce,
  leaderAmong,
  ledgerOf,
  ProcessCluster,
  safeJson,
  signedPost,
  SignedLoad,
  sleep,
  streamLeader,
  type Route,
} from './helpers/cluster_processes.js';
import { onThisMachine } from './helpers/machine_pace.js';

/**
 * A replicated society under the faults an operator meets, three nats-server nodes and
 * Tessera nodes as processes, signed load recording every acknowledged act: a leader
 * paused past its lease and resumed (fenced by the log, it exits 75 having acknowledged
 * nothing the log lacks); the NATS node leading the tick stream killed; the NATS quorum
 * lost and restored past the lease's ttl (writes refused at once with 503, reads served,
 * no node stops and the leader stays the leader); and a fresh cluster whose nodes all
 * start at once, signing under one log key. After each: every acknowledged act is on the
 * ledger once at the seq it was told, and every node's store replays to the same state.
 */

/** Short, to keep the pauses short; above a NATS election on loopback (about 2 s when no node dies). */
const SHORT_TTL_MS = 3000;
/** The default: longer than a NATS stream's election after a node's death (5 to 7 s). */
const DEFAULT_TTL_MS = 10_000;
/** How long the NATS quorum stays lost: past the lease's ttl, so the lease's entry may expire meanwhile. */
const OUTAGE_MS = 15_000;

/**
 * What a client may meet while nodes come and go (an OUTCOME_PENDING only after ten resends
 * of the very same request); anything else (a 500, a refused signature) is a bug.
 */
const EXPECTED_ERRORS =
  /TimeoutError|aborted|fetch failed|ECONNREFUSED|ECONNRESET|other side closed|503 NOT_LEADER|503 OUTCOME_PENDING|401 NONCE_INVALID|nonce: 503 NOT_LEADER/;

let cluster: ProcessCluster | undefined;
let load: SignedLoad | undefined;
afterEach(async () => {
  await load?.stop();
  await cluster?.stop();
  load = undefined;
  cluster = undefined;
});

async function agents(count: number, leader_url: string): Promise<AgentKey[]> {
  const keys = await Promise.all(Array.from({ length: count }, () => generateKey()));
  for (const [index, key] of keys.entries()) {
    const body = { pubkey: key.public_key, handle: `faulty${index}`, declared_runtime: '', backup_pubkey: null };
    // A cluster just started may have nobody writing yet (503 NOT_LEADER, Retry-After): sent again, as a client does.
    for (let tries = 1; ; tries++) {
      const nonce = await fetchNonce(leader_url, key.agent_id, 10_000).catch(() => undefined);
      const answer = nonce ? await signedPost(leader_url, '/api/v1/register', body, key, nonce, 10_000) : undefined;
      const text = await answer?.text();
      if (answer && answer.status !== 503) {
        expect(answer.ok, text).toBe(true);
        break;
      }
      if (tries === 30) throw new Error(`registration still refused after ${tries} tries: ${text}`);
      await sleep(1000);
    }
  }
  return keys;
}

async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: nothing within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

function unexpectedErrors(errors: string[]): string[] {
  return errors.filter((error) => !EXPECTED_ERRORS.test(error));
}

describe.skipIf(!HAVE_NATS_SERVER)('a replicated society under faults', () => {
  it('a leader paused past its lease and resumed is fenced: it exits 75, and nothing it acknowledged is missing or doubled', async () => {
    cluster = await ProcessCluster.start({ ttl_ms: SHORT_TTL_MS });
    const names = new Map<ChildServer, string>();
    const start = async (name: string, role: 'leader' | 'replica', nats_nodes: number[]) => {
      const server = await cluster!.node(name, role, { nats_nodes });
      names.set(server, name);
      return server;
    };
    let leader = await start('a', 'leader', [0, 1, 2]);
    cluster.copyLogKey('a', 'b');
    cluster.copyLogKey('a', 'c');
    let followers: ChildServer[] = await Promise.all([
      start('b', 'replica', [1, 0, 2]),
      start('c', 'replica', [2, 0, 1]),
    ]);

    // Two patient agents talk to the leader and wait a minute for an answer: they are mid-request when it is
    // paused and still waiting when it resumes, so whatever it answers then is seen. The others give up after
    // 3 s and try the next node, as a client in a hurry does, and so meet the new leader.
    const route_to = { leader: leader.url, all: [leader.url, ...followers.map((server) => server.url)] };
    const route: Route = (index, attempt) =>
      index < 2
        ? { url: route_to.leader, timeout_ms: 60_000 }
        : { url: route_to.all[(index + attempt) % route_to.all.length]!, timeout_ms: 3000 };
    load = new SignedLoad(await agents(6, leader.url), route);
    await load.until(30, 60_000, cluster.servers);

    const rounds: Record<string, unknown>[] = [];
    for (let round = 1; round <= 3; round++) {
      await load.until(load.acknowledged.length + 20, 60_000, cluster.servers);
      const paused = leader;
      // A request in flight at the leader is an act on its way into a tick, or in one being appended.
      const in_flight_at_pause = load.in_flight.get(paused.url) ?? 0;
      const paused_at = Date.now();
      paused.signal('SIGSTOP');
      const next = await leaderAmong(followers, 30_000);
      // Not a bound: the lease lapses a ttl after its last renewal, up to a check (1 s) before the pause.
      const took_over_ms = Date.now() - paused_at;
      route_to.leader = next.url;
      const first_ack_ms = await load.firstAckAfter(paused_at, 30_000, next.url);
      // Paused past its lease, whatever the takeover took.
      await sleep(SHORT_TTL_MS + 1000 - (Date.now() - paused_at));
      const paused_ms = Date.now() - paused_at;

      const resumed_at = Date.now();
      paused.signal('SIGCONT');
      const exit: ChildExit = await within(paused.exited, 30_000, 'the resumed leader’s exit');
      // Fenced: its renewal or its late append was refused, and it stopped without going on as a writer.
      expect(exit).toEqual({ code: 75, signal: null });
      // Whatever it answered after it resumed is checked with every other acknowledged act at the end.
      const answered_late = load.acknowledged.filter(
        (act) => act.answered_by === paused.url && act.at_ms >= resumed_at,
      ).length;
      // The new leader goes on writing after the old one woke up.
      await load.firstAckAfter(Date.now(), 30_000, next.url);

      // Started again, the fenced node follows: the next round has three nodes again.
      const again = await start(names.get(paused)!, names.get(paused) === 'a' ? 'leader' : 'replica', [0, 1, 2]);
      expect(again.output.join('\n')).toMatch(/following/);
      followers = [...followers.filter((server) => server !== next), again];
      leader = next;
      route_to.all = [leader.url, ...followers.map((server) => server.url)];
      // What fenced it: the refused renewal, or the late append of the tick it held when paused.
      const fenced_why = paused.output.map((line) => safeJson(line)).find((line) => line?.cluster === 'fenced')?.why;
      rounds.push({
        round,
        in_flight_at_pause,
        took_over_ms,
        first_ack_ms,
        paused_ms,
        exit,
        answered_late,
        fenced_why,
      });
      console.log('paused leader', rounds.at(-1));
    }
    // The pause caught the leader mid-request at least once (the load keeps two agents on it at all times).
    expect(rounds.some((round) => (round.in_flight_at_pause as number) > 0)).toBe(true);

    await load.stop();
    console.log('load', load.summary());
    const live = [leader, ...followers];
    await converged(live);
    expectAcknowledgedOnce(await ledgerOf(leader.url), load.acknowledged);
    expect(unexpectedErrors(load.errors)).toEqual([]);
    // The only nodes that stopped are the three paused leaders, each fenced.
    expect(cluster.exitedByThemselves().map((exit) => exit.code)).toEqual([75, 75, 75]);
    const hashes = await cluster.stopAndVerify(['a', 'b', 'c']);
    expect(new Set(hashes).size).toBe(1);
  }, 200_000);

  it('the NATS node leading the tick stream dies under load: no node stops, writes resume, nothing acknowledged is lost or doubled', async () => {
    cluster = await ProcessCluster.start({ ttl_ms: DEFAULT_TTL_MS });
    const a = await cluster.node('a', 'leader', { nats_nodes: [0, 1, 2] });
    cluster.copyLogKey('a', 'b');
    const b = await cluster.node('b', 'replica', { nats_nodes: [1, 2, 0] });
    const urls = [a.url, b.url];
    load = new SignedLoad(await agents(6, a.url), (index, attempt) => ({
      url: urls[(index + attempt) % 2]!,
      timeout_ms: 30_000,
    }));
    await load.until(40, 60_000, cluster.servers);

    const ticks_leader = await streamLeader(cluster.nats, 'tessera_ticks');
    const killed_at = Date.now();
    await cluster.nats.killNode(ticks_leader);
    const resumed_ms = await load.firstAckAfter(killed_at + 1, 30_000);
    await load.until(load.acknowledged.length + 30, 30_000, cluster.servers);
    console.log(
      `tick stream leader n${ticks_leader + 1} killed: an act sent after it was acknowledged in ${resumed_ms} ms`,
    );
    expect(cluster.exitedByThemselves()).toEqual([]);

    cluster.nats.startNode(ticks_leader);
    await load.until(load.acknowledged.length + 30, 30_000, cluster.servers);
    await load.stop();
    console.log('load', load.summary());
    await converged([a, b]);
    expectAcknowledgedOnce(await ledgerOf(a.url), load.acknowledged);
    expect(unexpectedErrors(load.errors)).toEqual([]);
    // The lease outlived the stream's election: the writer is the one it was.
    expect(b.output.join('\n')).not.toMatch(/"cluster":"leading"/);
    expect(cluster.exitedByThemselves()).toEqual([]);
    const hashes = await cluster.stopAndVerify(['a', 'b']);
    expect(new Set(hashes).size).toBe(1);
  }, 150_000);

  it('NATS quorum lost and restored: writes are refused at once with 503 NOT_LEADER, reads are served, no node stops, the leader stays the leader', async () => {
    cluster = await ProcessCluster.start({ ttl_ms: DEFAULT_TTL_MS });
    const a = await cluster.node('a', 'leader', { nats_nodes: [0, 1, 2] });
    cluster.copyLogKey('a', 'b');
    cluster.copyLogKey('a', 'c');
    // Two replicas, as a society that reads at scale has: each of them could take the lease when NATS is back.
    const [b, c] = await Promise.all([
      cluster.node('b', 'replica', { nats_nodes: [1, 2, 0] }),
      cluster.node('c', 'replica', { nats_nodes: [2, 0, 1] }),
    ]);
    const keys = await agents(5, a.url);
    const urls = [a.url, b.url, c.url];
    // The leader stays the leader throughout: it is never fenced nor leads anew, and no replica leads.
    const expectLeaderStayed = () => {
      const said = (server: ChildServer, what: string) =>
        server.output.filter((line) => safeJson(line)?.cluster === what).length;
      expect([a, b, c].map((server) => [said(server, 'leading'), said(server, 'fenced')])).toEqual([
        [1, 0],
        [0, 0],
        [0, 0],
      ]);
    };
    // Four agents load; the fifth sends the probes below.
    load = new SignedLoad(keys.slice(0, 4), (index, attempt) => ({
      url: urls[(index + attempt) % urls.length]!,
      timeout_ms: 60_000,
    }));
    await load.until(30, 60_000, cluster.servers);

    const lost_at = Date.now();
    await Promise.all([cluster.nats.killNode(1), cluster.nats.killNode(2)]);
    // Past the 2.5 s a leader goes without renewing before it refuses writes.
    await sleep(4000);
    const prober = keys[4]!;
    for (const server of [a, b, c]) {
      // The nonce is the leader's to issue, refused or not: a replica redirects for it.
      const nonce_answer = await fetch(`${server.url}/api/v1/nonce?agent=${prober.agent_id}`, {
        signal: AbortSignal.timeout(20_000),
      });
      const nonce = ((await nonce_answer.json()) as { nonce?: string }).nonce ?? 'none';
      const sent = Date.now();
      const answer = await signedPost(
        server.url,
        '/api/v1/keys/backup',
        { backup_pubkey: (await generateKey()).public_key },
        prober,
        nonce,
        20_000,
      );
      const answered_ms = Date.now() - sent;
      const body = (await answer.json()) as { error?: string };
      console.log(`quorum lost: a write to ${server === a ? 'the leader' : 'a replica'} answered in ${answered_ms} ms`);
      expect(answered_ms).toBeLessThan(onThisMachine(10_000));
      expect([answer.status, body.error, answer.headers.get('retry-after')]).toEqual([503, 'NOT_LEADER', '1']);
    }
    const reads_served = async () => {
      for (const server of [a, b, c]) {
        const started = Date.now();
        const head = await fetch(`${server.url}/api/v1/status`, { signal: AbortSignal.timeout(10_000) });
        const page = await fetch(`${server.url}/api/v1/ledger?from=1&limit=50`, {
          signal: AbortSignal.timeout(10_000),
        });
        expect([head.status, page.status]).toEqual([200, 200]);
        expect(((await page.json()) as { entries: unknown[] }).entries.length).toBeGreaterThan(0);
        expect(Date.now() - started).toBeLessThan(10_000);
      }
    };
    await reads_served();
    // An outage longer than the lease's ttl, on the NATS servers' clocks as on the nodes'.
    await sleep(OUTAGE_MS - (Date.now() - lost_at));
    await reads_served();
    expect(cluster.exitedByThemselves()).toEqual([]);
    expectLeaderStayed();

    const restored_at = Date.now();
    console.log(`quorum restored after ${restored_at - lost_at} ms`);
    cluster.nats.startNode(1);
    cluster.nats.startNode(2);
    const resumed_ms = await load.firstAckAfter(restored_at, 60_000);
    console.log(`quorum restored: an act sent after it was acknowledged in ${resumed_ms} ms`);
    await load.until(load.acknowledged.length + 30, 60_000, cluster.servers);
    await load.stop();
    console.log('load', load.summary());
    console.log(cluster.clusterLines().join('\n'));
    // No node stopped, and the leader of before writes every act acknowledged since (a replica's 307 leads to it).
    expect(cluster.exitedByThemselves()).toEqual([]);
    expectLeaderStayed();
    const since_restored = load.acknowledged.filter((act) => act.sent_at_ms >= restored_at);
    expect(since_restored.length).toBeGreaterThan(0);
    expect(since_restored.filter((act) => act.answered_by !== a.url)).toEqual([]);
    await converged([a, b, c]);
    expectAcknowledgedOnce(await ledgerOf(a.url), load.acknowledged);
    expect(unexpectedErrors(load.errors)).toEqual([]);
    expect(cluster.exitedByThemselves()).toEqual([]);
    const hashes = await cluster.stopAndVerify(['a', 'b', 'c']);
    expect(new Set(hashes).size).toBe(1);
  }, 180_000);

  it('nodes started at once on a fresh cluster sign under one log key; replicas without log.key refuse to start', async () => {
    cluster = await ProcessCluster.start({ ttl_ms: SHORT_TTL_MS });
    const recorded = async (log_name: string) => {
      const connection = await connect({ servers: cluster!.nats.url().split(',') });
      try {
        const kv = await new Kvm(jetstream(connection)).open(`${log_name}_identity`);
        return (await kv.get(LOG_VKEY_KEY))?.string();
      } finally {
        await connection.close();
      }
    };
    // A node that serves, or its refusal to start.
    const started = (
      name: string,
      role: 'leader' | 'replica',
      log_name: string,
    ): Promise<{ server?: ChildServer; refused?: ChildServerExitedError }> =>
      cluster!.node(name, role, { env: { LOG_NAME: log_name } }).then(
        (server) => ({ server }),
        (error: unknown) => {
          if (!(error instanceof ChildServerExitedError)) throw error;
          return { refused: error };
        },
      );

    // With the key copied beforehand, as docs/scaling.md says: the leader's key, made before its first start.
    await createLogKey(cluster.folder('a'), 'faults.test/tessera');
    const made = await loadLogKey(cluster.folder('a'), 'faults.test/tessera', false);
    cluster.copyLogKey('a', 'b');
    cluster.copyLogKey('a', 'c');
    const together = await Promise.all([
      started('a', 'leader', 'together'),
      started('b', 'replica', 'together'),
      started('c', 'replica', 'together'),
    ]);
    const servers = together.map((node) => node.server!);
    expect(servers.every(Boolean)).toBe(true);
    await agents(2, servers[0]!.url);
    await converged(servers);
    const vkey = await recorded('together');
    expect(vkey).toBe(made.vkey);
    const keys_used = await Promise.all(servers.map((server) => checkpointKey(server.url)));
    expect(keys_used.map((used) => used.vkey)).toEqual([vkey, vkey, vkey]);
    for (const used of keys_used) expect(used.signed_by).toEqual(used.named_by_vkey);

    // Without it: the leader makes the log's key, the replicas refuse, naming log.key, and serve nothing.
    const bare = await Promise.all([
      started('d', 'leader', 'bare'),
      started('e', 'replica', 'bare'),
      started('f', 'replica', 'bare'),
    ]);
    expect(bare[0]!.server).toBeDefined();
    for (const node of bare.slice(1)) {
      expect(node.refused?.code).toBe(1);
      expect(node.refused?.stderr).toMatch(/log\.key/);
    }
    const bare_vkey = await recorded('bare');
    expect((await checkpointKey(bare[0]!.server!.url)).vkey).toBe(bare_vkey);
    // The remedy the refusal names: the leader's log.key copied over, and the replica serves under that key.
    cluster.copyLogKey('d', 'e');
    const e = await cluster.node('e', 'replica', { env: { LOG_NAME: 'bare' } });
    await converged([bare[0]!.server!, e]);
    expect((await checkpointKey(e.url)).vkey).toBe(bare_vkey);

    // Two leaders by mistake, neither with a key: each makes one, one is recorded, the other node refuses.
    const twins = await Promise.all([started('g', 'leader', 'twins'), started('h', 'leader', 'twins')]);
    const serving = twins.filter((node) => node.server);
    expect(serving).toHaveLength(1);
    expect(twins.find((node) => node.refused)?.refused?.stderr).toMatch(/log\.key|log key/);
    expect((await checkpointKey(serving[0]!.server!.url)).vkey).toBe(await recorded('twins'));
  }, 120_000);
});

/**
 * The key a node signs its checkpoints under: the vkey it serves, the (name, key id) on
 * the checkpoint's signature line, and the (name, key id) the vkey names. The checkpoint
 * is opened with that vkey, so a signature by another key fails here.
 */
async function checkpointKey(url: string) {
  const vkey = (await (await fetch(`${url}/log/key`)).text()).trim();
  const note = await (await fetch(`${url}/log/checkpoint`)).text();
  const line = parseNote(note).signatures[0]!;
  const key = parseVerifierKey(vkey);
  await openNote(note, [noteVerifier(key)]);
  return {
    vkey,
    signed_by: { name: line.name, key_id: line.key_id },
    named_by_vkey: { name: key.name, key_id: key.key_id },
  };
}
