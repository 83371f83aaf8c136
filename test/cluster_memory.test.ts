import { afterEach, describe, expect, it } from 'vitest';
import { generateKey } from '../client/keys.js';
import { TesseraClient } from '../client/sdk.js';
import { DivergedLogError, imageOf, stateFromImage, stateHash, type ReplicatedTick } from '../engine/index.js';
import { replayTick } from '../engine/apply.js';
import { ReplicatedStore } from '../api/cluster/replicated_store.js';
import { FencedError, StaleWriterError, type TickLog } from '../api/cluster/tick_log.js';
import { memoryCluster, startClusterNode, type ClusterTestNode } from './helpers/cluster.js';
import { memoryEngine, registered } from './helpers/memory_engine.js';
import { startTestSociety } from './helpers/society.js';
import { fetchNonce, rawSigned } from './helpers/signed.js';

/**
 * A replicated society with the in-process log adapter and lease: real LMDB and real
 * HTTP on every node, the log and the lease shared in memory (NATS itself is in
 * test/cluster_nats.test.ts). What a node promises: a follower holds exactly the
 * writer's ledger and state, writes sent to it reach the writer, only one node writes,
 * and a writer that lost its lease or was overtaken writes nothing more.
 */
const nodes: ClusterTestNode[] = [];
afterEach(async () => {
  for (const node of nodes.splice(0)) {
    node.link.cut = false;
    await node.destroy().catch(() => undefined);
  }
});

async function node(...args: Parameters<typeof startClusterNode>): Promise<ClusterTestNode> {
  const started = await startClusterNode(...args);
  nodes.push(started);
  return started;
}

async function until(condition: () => boolean | Promise<boolean>, within_ms = 5000): Promise<void> {
  const give_up = Date.now() + within_ms;
  while (!(await condition())) {
    if (Date.now() > give_up) throw new Error('condition not met in time');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const headOf = (society: ClusterTestNode) => society.store.ledgerHead();

/** A leader and a replica that never leads, sharing the cluster's log and lease. */
async function readOnlyPair(cluster: ReturnType<typeof memoryCluster>) {
  const leader = await node(cluster, { node_id: 'a', role: 'leader' });
  const replica = await node(cluster, {
    node_id: 'b',
    role: 'replica',
    eligible: false,
    log_key_from: leader.data_dir,
  });
  return { leader, replica };
}

describe('a read replica', () => {
  it('holds the writer’s ledger and state hash for hash, and hands signed writes on to the writer', async () => {
    // Both nodes and the clients (solving Proof of Machine) share one event loop here: a long ttl keeps the lease steady.
    const cluster = memoryCluster(10_000);
    const leader = await node(cluster, { node_id: 'a', role: 'leader' });
    expect(leader.cluster!.leading).toBe(true);
    const replica = await node(cluster, { node_id: 'b', role: 'replica', log_key_from: leader.data_dir });
    expect(replica.cluster!.leading).toBe(false);
    // Agents that only know the replica: their signed registrations and key posts are redirected (307) and accepted.
    for (let index = 0; index < 6; index++) {
      const client = new TesseraClient(replica.url, await generateKey());
      await client.register(`far${index}`);
      await client.registerBackupKey((await generateKey()).public_key);
    }
    await until(() => headOf(replica).seq === headOf(leader).seq);
    expect(leader.fatal).toEqual([]);
    expect(headOf(replica)).toEqual(headOf(leader));
    expect(stateHash(replica.engine.state)).toBe(stateHash(leader.engine.state));
    for (let seq = 1; seq <= headOf(leader).seq; seq++)
      expect(replica.store.ledgerJson(seq)).toBe(leader.store.ledgerJson(seq));
    // Its reads are its own: the same agents, and the transparency log's same root.
    const agents = await (await fetch(`${replica.url}/api/v1/agents?limit=50`)).json();
    expect(agents).toEqual(await (await fetch(`${leader.url}/api/v1/agents?limit=50`)).json());
    expect(replica.engine.log_tree.root(headOf(replica).seq)).toEqual(leader.engine.log_tree.root(headOf(leader).seq));
    // The same chunk bytes under the same ETag, so a cache in front of several nodes serves either's.
    const chunk = '/api/v1/world/chunk/16/16';
    const [leader_chunk, replica_chunk] = await Promise.all([fetch(leader.url + chunk), fetch(replica.url + chunk)]);
    expect(replica_chunk.headers.get('etag')).toBe(leader_chunk.headers.get('etag'));
    expect(Buffer.from(await replica_chunk.arrayBuffer())).toEqual(Buffer.from(await leader_chunk.arrayBuffer()));
    // The same checkpoint, byte for byte: one log key, one tree, the same size.
    const checkpoint = async (url: string) => (await fetch(`${url}/log/checkpoint`)).text();
    await until(async () => (await checkpoint(replica.url)) === (await checkpoint(leader.url)));
    expect(await checkpoint(replica.url)).toMatch(new RegExp(`^\\S+\\n${headOf(leader).seq}\\n`));
    // Its own event stream, fed by the ticks it follows.
    const events = await fetch(`${replica.url}/api/v1/events?from=1`);
    const reader = events.body!.getReader();
    let streamed = '';
    while (!streamed.includes(`id: ${headOf(leader).seq}\n`))
      streamed += new TextDecoder().decode((await reader.read()).value);
    await reader.cancel();
    const redirected = await fetch(`${replica.url}/api/v1/register`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(redirected.status).toBe(307);
    expect(redirected.headers.get('location')).toBe(`${leader.url}/api/v1/register`);
    // A path that would read as another host stays a path on the writer: no open redirect.
    const { request } = await import('node:http');
    const hostile_location = await new Promise<string | undefined>((resolve, reject) => {
      const sent = request(`${replica.url}//evil.example/x?y=1`, { method: 'POST' }, (answer) => {
        answer.resume();
        resolve(answer.headers.location);
      });
      sent.on('error', reject);
      sent.end('{}');
    });
    expect(hostile_location).toBe(`${leader.url}//evil.example/x?y=1`);
    const nonce = await fetch(`${replica.url}/api/v1/nonce?agent_id=ag_0000000000000000`, { redirect: 'manual' });
    expect(nonce.status).toBe(307);
    expect(leader.bugs).toEqual([]);
    expect(replica.bugs).toEqual([]);
  });

  it('answers 503 NOT_LEADER with Retry-After when no node writes, and its engine refuses submissions', async () => {
    const cluster = memoryCluster();
    const { leader, replica } = await readOnlyPair(cluster);
    await leader.close();
    nodes.splice(nodes.indexOf(leader), 1);
    // A clean stop gives the lease up at once; this replica may not lead, so nobody writes.
    await until(
      async () =>
        (await fetch(`${replica.url}/api/v1/register`, { method: 'POST', redirect: 'manual' })).status === 503,
    );
    const refused = await fetch(`${replica.url}/api/v1/register`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ error: 'NOT_LEADER', retry_after_seconds: 1 });
    const submitted = await replica.engine.submit({ act: 'register', actor: 'ag_0000000000000000', payload: {} });
    expect(submitted).toMatchObject({ ok: false, code: 'NOT_LEADER' });
    // Reads go on.
    expect((await fetch(`${replica.url}/api/v1/status`)).status).toBe(200);
  });
});

describe('a writer that cannot reach its log', () => {
  it('answers a held act 503 OUTCOME_PENDING, refuses new ones NOT_LEADER, and gives the same request its one outcome once the log is back', async () => {
    const cluster = memoryCluster(2000);
    const leader = await node(cluster, { node_id: 'a', role: 'leader' });
    const key = await generateKey();
    await new TesseraClient(leader.url, key).register('patient');
    const nonce = await fetchNonce(leader.url, key.agent_id);
    const held = { path: '/api/v1/keys/backup', body: { backup_pubkey: (await generateKey()).public_key }, key, nonce };
    // The network to NATS goes: the act is applied and its tick waits for an append that cannot land.
    leader.link.cut = true;
    const first = await rawSigned(leader.url, held);
    expect([first.status, first.body.error, first.headers.get('retry-after')]).toEqual([503, 'OUTCOME_PENDING', '2']);
    // Once the leader has missed its renewals, a new write is refused at once, nothing spent.
    await until(() => !leader.cluster!.writable);
    const refused = await rawSigned(leader.url, { ...held, nonce: await fetchNonce(leader.url, key.agent_id) });
    expect([refused.status, refused.body.error]).toEqual([503, 'NOT_LEADER']);
    // The log is back: the very same request gets the outcome of the one that was held.
    leader.link.cut = false;
    let again = await rawSigned(leader.url, held);
    while (again.status === 503) again = await rawSigned(leader.url, held);
    expect(again.status).toBe(200);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    const registered = [...leader.store.ledgerEntries(1)].filter(
      ({ json }) => json.includes('"key_backup_registered"') && json.includes(key.agent_id),
    );
    expect(registered).toHaveLength(1);
    expect(leader.fatal).toEqual([]);
  });
});

describe('a NATS outage', () => {
  it('longer than the lease moves nothing: the leader writes its expired lease again, and the replica leaves it a ttl to', async () => {
    const cluster = memoryCluster(1500);
    const leader = await node(cluster, { node_id: 'a', role: 'leader' });
    const replica = await node(cluster, { node_id: 'b', role: 'replica', log_key_from: leader.data_dir });
    await until(() => replica.cluster!.leader_url === leader.url);
    // Nobody reaches NATS for longer than the entry lives on the server (twice the ttl here).
    leader.link.cut = true;
    replica.link.cut = true;
    await until(async () => (await cluster.bucket.get()) === undefined, 6000);
    leader.link.cut = false;
    replica.link.cut = false;
    await new Promise((resolve) => setTimeout(resolve, 2 * cluster.ttl_ms));
    expect(leader.fatal).toEqual([]);
    expect(replica.fatal).toEqual([]);
    expect([leader.cluster!.leading, replica.cluster!.leading]).toEqual([true, false]);
    await new TesseraClient(replica.url, await generateKey()).register('afterwards');
  });
});

describe('failover', () => {
  it('a writer cut off loses the lease to a caught-up replica, which writes; the old one, back, is refused and stops; nothing acknowledged is lost or doubled', async () => {
    const cluster = memoryCluster(1500);
    const first = await node(cluster, { node_id: 'a', role: 'leader' });
    const second = await node(cluster, { node_id: 'b', role: 'replica', log_key_from: first.data_dir });
    const acknowledged: number[] = [];
    for (let index = 0; index < 4; index++) {
      const answer = await new TesseraClient(first.url, await generateKey()).register(`early${index}`);
      acknowledged.push((answer as unknown as { ledger: { first_seq: number } }).ledger.first_seq);
    }
    // The writer's network goes: it can neither renew its lease nor append, and the lease lapses.
    first.link.cut = true;
    await until(() => second.cluster!.leading, 5000);
    const answer = await new TesseraClient(second.url, await generateKey()).register('later');
    acknowledged.push((answer as unknown as { ledger: { first_seq: number } }).ledger.first_seq);
    // Its network back, the old writer finds the lease taken and stops writing; an act sent to it meanwhile is refused.
    first.link.cut = false;
    await until(() => first.fatal.length > 0, 5000);
    expect(String(first.fatal[0])).toMatch(/fenced: another node took the lease/);
    expect(await first.engine.submit({ act: 'register', actor: 'ag_0000000000000000', payload: {} })).toMatchObject({
      code: 'NOT_LEADER',
    });
    const registrations = [...second.store.ledgerEntries(1)]
      .map(({ json }) => JSON.parse(json) as { seq: number; event_type: string; actor: string })
      .filter((entry) => entry.event_type === 'agent_registered' && entry.actor !== 'system');
    expect(registrations.filter((entry) => acknowledged.includes(entry.seq))).toHaveLength(acknowledged.length);
    expect(new Set(registrations.map((entry) => entry.actor)).size).toBe(registrations.length);
    expect(await cluster.log.lastTick()).toBe(second.engine.state.tick);
  });

  it('the old writer started again follows the new one and catches up', async () => {
    const cluster = memoryCluster(600);
    const first = await node(cluster, { node_id: 'a', role: 'leader' });
    const second = await node(cluster, { node_id: 'b', role: 'replica', log_key_from: first.data_dir });
    first.link.cut = true;
    await until(() => second.cluster!.leading, 3000);
    await new TesseraClient(second.url, await generateKey()).register('meanwhile');
    const data_dir = first.data_dir;
    first.link.cut = false;
    await first.close();
    nodes.splice(nodes.indexOf(first), 1);
    const again = await node(cluster, { node_id: 'a', role: 'leader', data_dir });
    expect(again.cluster!.leading).toBe(false);
    await until(() => headOf(again).seq === headOf(second).seq);
    expect(stateHash(again.engine.state)).toBe(stateHash(second.engine.state));
    const redirected = await fetch(`${again.url}/api/v1/register`, { method: 'POST', redirect: 'manual' });
    expect(redirected.headers.get('location')).toBe(`${second.url}/api/v1/register`);
  });
});

describe('joining a replicated log', () => {
  it('a society that ran on one machine hands its history to an empty log, and a replica from nothing rebuilds it', async () => {
    const alone = await startTestSociety({ start_ms: Date.now() });
    for (let index = 0; index < 3; index++)
      await new TesseraClient(alone.url, await generateKey()).register(`solo${index}`);
    const head = alone.store.ledgerHead();
    const data_dir = alone.data_dir;
    await alone.close();
    const cluster = memoryCluster(10_000);
    const leader = await node(cluster, { node_id: 'a', role: 'leader', data_dir });
    expect(leader.cluster!.leading).toBe(true);
    expect(leader.logs.some((line) => line.includes('seeded the log'))).toBe(true);
    expect(await cluster.log.lastTick()).toBe(leader.engine.state.tick);
    const replica = await node(cluster, { node_id: 'b', role: 'replica', log_key_from: leader.data_dir });
    expect(replica.store.ledgerHead().seq).toBeGreaterThanOrEqual(head.seq);
    expect(replica.store.ledgerHash(head.seq)).toBe(head.hash);
    await until(() => headOf(replica).seq === headOf(leader).seq);
    expect(stateHash(replica.engine.state)).toBe(stateHash(leader.engine.state));
  });

  it('refuses to start on a store of another society, naming the tick, and leaves the folder as it was', async () => {
    const cluster = memoryCluster(10_000);
    const leader = await node(cluster, { node_id: 'a', role: 'leader' });
    await new TesseraClient(leader.url, await generateKey()).register('native');
    const stranger = await startTestSociety({ start_ms: Date.now() });
    await new TesseraClient(stranger.url, await generateKey()).register('stranger');
    const stranger_head = stranger.store.ledgerHead();
    await stranger.close();
    await expect(
      startClusterNode(cluster, {
        node_id: 'b',
        role: 'replica',
        data_dir: stranger.data_dir,
        log_key_from: leader.data_dir,
      }),
    ).rejects.toThrow(/tick \d+: the replicated log's tick \d+ ends at seq .* which this store does not hold/);
    // The store is as it was, and the folder is free again for the operator's next step.
    const again = await startTestSociety({ data_dir: stranger.data_dir, start_ms: Date.now() });
    expect(again.store.ledgerHead()).toEqual(stranger_head);
    await again.destroy();
  });
});

describe('a writer whose term has ended', () => {
  it('has its tick refused, and its own store keeps nothing of it', async () => {
    const cluster = memoryCluster();
    const under = await memoryEngine();
    const writer = new ReplicatedStore(under.store);
    writer.lead(await cluster.log.beginTerm('mine', 0));
    // Another node begins its term after this one's: from then on this writer's appends are refused.
    await cluster.log.beginTerm('theirs', 0);
    const ticks_before = under.store.lastTick();
    const head_before = under.store.ledgerHead();
    await expect(
      writer.commitTick({
        record: { tick: 1, at_ms: 1, actions: [] },
        entries: [],
        tree_hashes: new Uint8Array(0),
        consumed_nonces: [],
      }),
    ).rejects.toBeInstanceOf(StaleWriterError);
    expect(under.store.lastTick()).toBe(ticks_before);
    expect(under.store.ledgerHead()).toEqual(head_before);
  });
});

describe('a node coming to lead', () => {
  it('is fenced (exit 75), not said to diverge (65), when a newer term refuses its own at the start', async () => {
    const cluster = memoryCluster();
    // The log refuses the term as it would once another node's term had begun after this node took the lease.
    const refusing = (log: TickLog): TickLog =>
      Object.assign(Object.create(log) as TickLog, {
        beginTerm: async () => {
          throw new StaleWriterError(0, 'another term has begun since this writer’s');
        },
      });
    const leader = await node(cluster, { node_id: 'a', role: 'leader', wrap_log: refusing });
    await until(() => leader.fatal.length > 0);
    expect(leader.fatal[0]).toBeInstanceOf(FencedError);
    expect(leader.fatal[0]).not.toBeInstanceOf(DivergedLogError);
    expect(String(leader.fatal[0])).toMatch(/another term has begun/);
  });
});

describe('a follower checks what it follows', () => {
  it('refuses a tick whose act was forged by whoever wrote the log, even with a head that matches the forgery', async () => {
    const cluster = memoryCluster();
    const { leader, replica } = await readOnlyPair(cluster);
    const victim = await generateKey();
    const victim_client = new TesseraClient(leader.url, victim);
    await victim_client.register('victim');
    await until(() => headOf(replica).seq === headOf(leader).seq);
    const head_before = headOf(replica);
    // The log's writer (or anyone who can append to it) forges the victim's key post: a signature it cannot make.
    const last = (await cluster.log.read(await cluster.log.lastTick()))!;
    const signed_act = last.record.actions.find((action) => action.proof)!;
    const forged_key = (await generateKey()).public_key;
    const forged: ReplicatedTick = {
      ...last,
      record: {
        tick: last.record.tick + 1,
        at_ms: last.record.at_ms + 1,
        actions: [
          {
            act: 'key_backup_register',
            actor: victim.agent_id,
            payload: { backup_pubkey: forged_key },
            proof: { ...signed_act.proof!, path: '/api/v1/keys/backup', nonce: 'forged'.padEnd(40, 'x') },
          },
        ],
      },
      consumed_nonces: [],
      kept_answers: [],
    };
    // A head that matches what the forgery replays to, so only the signature check can catch it.
    const scratch = stateFromImage(imageOf(replica.engine.state));
    replayTick(scratch, forged.record);
    forged.ledger_head = { ...scratch.ledger_head };
    const forger = await cluster.log.beginTerm('forger', last.record.tick);
    await forger.append(forged);
    await until(() => replica.fatal.length > 0);
    expect(String(replica.fatal[0])).toMatch(/does not verify/);
    expect(headOf(replica)).toEqual(head_before);
    expect(replica.engine.state.agents.get(victim.agent_id)?.backup_pubkey).toBeNull();
  });
});

describe('the engine as a follower', () => {
  it('applies the writer’s ticks to the same head, and refuses one that replays to another head, keeping its state', async () => {
    const writer = await memoryEngine();
    await registered(writer.engine, 'ada');
    const follower = await memoryEngine({ founder: writer.founder, writer: false });
    const published = (tick: { tick: number }, head: { seq: number; hash: string }): ReplicatedTick => ({
      record: tick as ReplicatedTick['record'],
      ledger_head: head,
      consumed_nonces: [],
      kept_answers: [],
    });
    const ticks = [...writer.store.ticksAfter(0)];
    // The head genesis makes: another engine founded the same way, at the same engine time.
    const genesis_head = (await memoryEngine({ founder: writer.founder })).store.ledgerHead();
    await follower.engine.follow(published(ticks[0]!, genesis_head));
    expect(follower.store.ledgerHead()).toEqual(genesis_head);
    const before = follower.store.ledgerHead();
    await expect(follower.engine.follow(published(ticks[1]!, { seq: 99, hash: 'f'.repeat(64) }))).rejects.toThrow(
      /replays to seq \d+ .*its writer published seq 99/,
    );
    expect(follower.engine.state.ledger_head).toEqual(before);
    expect(follower.store.ledgerHead()).toEqual(before);
    await follower.engine.follow(published(ticks[1]!, writer.store.ledgerHead()));
    expect(stateHash(follower.engine.state)).toBe(stateHash(writer.engine.state));
    // A writer does not follow, and a follower does not write.
    await expect(writer.engine.follow(published(ticks[1]!, writer.store.ledgerHead()))).rejects.toThrow(
      /cannot follow/,
    );
    expect(await follower.engine.submit({ act: 'register', actor: 'x', payload: {} })).toMatchObject({
      code: 'NOT_LEADER',
    });
  });
});

describe('the replication settings', () => {
  it('refuse hostile or mistaken values, each named, before anything starts', async () => {
    const { configFromEnv } = await import('../api/config.js');
    const refused: [Record<string, string>, RegExp][] = [
      [{ LOG_URL: 'http://n1:4222' }, /LOG_URL/],
      [{ LOG_URL: 'nats://n1:4222, nats://n2:4222' }, /LOG_URL/],
      [{ LOG_URL: 'nats://n1:4222', ROLE: 'writer' }, /ROLE/],
      [{ LOG_URL: 'nats://n1:4222', NODE_ID: 'a b' }, /NODE_ID/],
      [{ LOG_URL: 'nats://n1:4222', NODE_ID: 'x'.repeat(65) }, /NODE_ID/],
      [{ LOG_URL: 'nats://n1:4222', LOG_NAME: 'tessera.ticks' }, /LOG_NAME/],
      [{ LOG_URL: 'nats://n1:4222', LOG_REPLICAS: '0' }, /LOG_REPLICAS/],
      [{ LOG_URL: 'nats://n1:4222', LEASE_TTL_MS: '10' }, /LEASE_TTL_MS/],
      [{ LOG_URL: 'nats://n1:4222', FAILOVER: 'yes' }, /FAILOVER/],
      [{ ROLE: 'replica' }, /ROLE=replica needs LOG_URL/],
    ];
    for (const [env, named] of refused) expect(() => configFromEnv(env), JSON.stringify(env)).toThrow(named);
    expect(configFromEnv({}).cluster).toBeUndefined();
    expect(configFromEnv({ LOG_URL: 'nats://n1:4222,nats://n2:4222', NODE_ID: 'a' }).cluster).toMatchObject({
      servers: ['nats://n1:4222', 'nats://n2:4222'],
      role: 'leader',
      node_id: 'a',
      lease_ttl_ms: 10_000,
      eligible: true,
    });
  });
});
