import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { LOG_VKEY_KEY, MemoryLogIdentity, NatsLogIdentity, type LogIdentity } from '../api/cluster/log_identity.js';
import { LOG_KEY_FILE, StartRefusedError } from '../api/data_folder.js';
import { createLogKey, loadLogKey } from '../api/log/log_key.js';
import { HAVE_NATS_SERVER, NatsCluster } from '../bench/nats_cluster.js';
import { memoryCluster, startClusterNode, type ClusterTestNode } from './helpers/cluster.js';
import { tempDir } from './helpers/society.js';

/**
 * The society's log key is recorded with the replicated log by the first node to claim,
 * so nodes started at once sign under one key: a replica never makes one, a leader makes
 * one only while the log is new, and a node holding another key than the recorded one is
 * refused before it writes or serves anything.
 */
const VKEY_A = 'a.test/tessera+01234567+AQ==';
const VKEY_B = 'b.test/tessera+89abcdef+AQ==';

/** What every record promises: the first claim is recorded, every later claim learns it, concurrent claims agree. */
function claimsAgree(name: string, identity: () => Promise<LogIdentity>) {
  it(`${name}: the first claim is recorded and a different later claim is answered with it`, async () => {
    const record = await identity();
    expect(await record.claim(VKEY_A)).toBe(VKEY_A);
    expect(await record.claim(VKEY_B)).toBe(VKEY_A);
    expect(await record.claim(VKEY_A)).toBe(VKEY_A);
  });

  it(`${name}: claims made at once all get the same one of them`, async () => {
    const record = await identity();
    const claimed = await Promise.all(Array.from({ length: 6 }, (_, index) => record.claim(`n${index}+00000000+AQ==`)));
    expect(new Set(claimed).size).toBe(1);
    expect(claimed[0]).toMatch(/^n\d\+/);
  });
}

claimsAgree('in memory', async () => new MemoryLogIdentity());

describe.skipIf(!HAVE_NATS_SERVER)('the record in a NATS key-value bucket', () => {
  let nats: NatsCluster;
  const connections: NatsConnection[] = [];
  let buckets = 0;

  beforeAll(async () => {
    nats = await NatsCluster.start(3);
  });
  afterAll(async () => {
    for (const connection of connections) await connection.close();
    await nats?.stop();
  });

  async function connection(): Promise<NatsConnection> {
    const opened = await connect({ servers: nats.url().split(',') });
    connections.push(opened);
    return opened;
  }

  // Each node has its own connection, as separate processes would.
  async function nodes(count: number, bucket = `identity_${++buckets}`): Promise<NatsLogIdentity[]> {
    return Promise.all(Array.from({ length: count }, async () => new NatsLogIdentity(await connection(), bucket, 3)));
  }

  claimsAgree('on NATS, one connection', async () => (await nodes(1))[0]!);

  it('on NATS, keeps the key in a bucket of its own that never expires, where the refusal tells an operator to look', async () => {
    const [node] = await nodes(1, 'identity_seen');
    expect(await node!.claim(VKEY_A)).toBe(VKEY_A);
    const kv = await new Kvm(jetstream(await connection())).open('identity_seen');
    expect((await kv.get(LOG_VKEY_KEY))?.string()).toBe(VKEY_A);
    expect(await kv.status()).toMatchObject({ ttl: 0, history: 1, replicas: 3 });
    expect(node!.where).toContain('nats kv get identity_seen log_vkey');
  });

  it('on NATS, nodes on their own connections claiming at once agree, the bucket made already', async () => {
    // Made beforehand (by a node stopped before it claimed), so the claims race on the key, not on making the bucket.
    const bucket = `identity_${++buckets}`;
    await new Kvm(jetstream(await connection())).create(bucket, { history: 1, replicas: 3 });
    const claimants = await nodes(6, bucket);
    const claimed = await Promise.all(claimants.map((node, index) => node.claim(`n${index}+00000000+AQ==`)));
    expect(new Set(claimed).size).toBe(1);
  });

  // Last: it stops two of the three NATS nodes.
  it('on NATS, waits out a cluster without a quorum, logging, then gives up with what to do; claims once it is back', async () => {
    await nats.killNode(1);
    await nats.killNode(2);
    const retries: Record<string, unknown>[] = [];
    const impatient = new NatsLogIdentity(await connection(), 'identity_no_quorum', 3, {
      give_up_after_ms: 6000,
      log: (line) => retries.push(line),
    });
    await expect(impatient.claim(VKEY_A)).rejects.toThrow(
      /within 6 s .*no JetStream quorum.*Start enough NATS nodes with JetStream/,
    );
    expect(retries.length).toBeGreaterThan(0);
    expect(retries[0]).toMatchObject({ cluster: 'log key claim retried' });
    const patient = new NatsLogIdentity(await connection(), 'identity_no_quorum', 3);
    const claimed = patient.claim(VKEY_B);
    nats.startNode(1);
    nats.startNode(2);
    expect(await claimed).toBe(VKEY_B);
  });
});

describe('start-up of a replicated node against the recorded key', () => {
  const started: ClusterTestNode[] = [];
  const folders: string[] = [];
  afterEach(async () => {
    for (const node of started.splice(0)) await node.destroy().catch(() => undefined);
    for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
  });

  function folder(): string {
    const made = tempDir();
    folders.push(made);
    return made;
  }

  async function node(...args: Parameters<typeof startClusterNode>): Promise<ClusterTestNode> {
    const society = await startClusterNode(...args);
    started.push(society);
    return society;
  }

  const identityCluster = () => ({ ...memoryCluster(10_000), identity: new MemoryLogIdentity() });
  const vkeyOf = async (data_dir: string) => (await loadLogKey(data_dir, 'unused', false)).vkey;

  it('refuses a replica without log.key, on a new log too, naming the file to copy from the leader, and records nothing', async () => {
    const cluster = identityCluster();
    const data_dir = folder();
    const refused = startClusterNode(cluster, { node_id: 'b', role: 'replica', data_dir });
    await expect(refused).rejects.toThrow(StartRefusedError);
    await expect(refused).rejects.toThrow(
      `${join(data_dir, LOG_KEY_FILE)} is missing, and a replica (ROLE=replica) never makes a log key`,
    );
    await expect(refused).rejects.toThrow("Copy log.key from the leader's data folder");
    expect(existsSync(join(data_dir, LOG_KEY_FILE))).toBe(false);
    expect(await cluster.log.lastTick()).toBe(0);
    expect(await cluster.identity.claim(VKEY_A)).toBe(VKEY_A);
  });

  it('starts a replica on a log nobody founded yet without a Founder key of its own; it leaves that log to the leader, then follows it', async () => {
    const cluster = { ...memoryCluster(300), identity: new MemoryLogIdentity() };
    const key_dir = folder();
    await createLogKey(key_dir, 'replica-first.test/tessera');
    const replica = await node(cluster, { node_id: 'b', role: 'replica', log_key_from: key_dir });
    // A key made here would be a stranger's: had this node led the empty log, it would have founded another society.
    expect(existsSync(join(replica.data_dir, 'founder.key.json'))).toBe(false);
    // The lease free for several ttls: a node with nothing to found with leaves the empty log alone.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(await cluster.log.lastTick()).toBe(0);
    const leader = await node(cluster, { node_id: 'a', role: 'leader', log_key_from: key_dir });
    const settled = async (done: () => boolean) => {
      for (let waited_ms = 0; !done() && waited_ms < 10_000; waited_ms += 50)
        await new Promise((resolve) => setTimeout(resolve, 50));
    };
    await settled(() => leader.store.ledgerHead().seq > 0);
    const founded_seq = leader.store.ledgerHead().seq;
    expect(founded_seq).toBeGreaterThan(0);
    await settled(() => replica.store.ledgerHead().seq >= founded_seq);
    expect(replica.store.ledgerHead()).toEqual(leader.store.ledgerHead());
    expect([replica.fatal, leader.fatal]).toEqual([[], []]);
  });

  it('refuses a leader whose own key is not the recorded one, naming both; with the leader’s key copied it starts', async () => {
    const cluster = identityCluster();
    const leader = await node(cluster, { node_id: 'a', role: 'leader' });
    const recorded = await vkeyOf(leader.data_dir);
    expect(await cluster.identity.claim(VKEY_A)).toBe(recorded);
    const ticks = await cluster.log.lastTick();
    const data_dir = folder();
    await createLogKey(data_dir, 'other.test/tessera');
    const own = await vkeyOf(data_dir);
    const key_text = readFileSync(join(data_dir, LOG_KEY_FILE), 'utf8');
    const refused = startClusterNode(cluster, { node_id: 'b', role: 'leader', data_dir });
    await expect(refused).rejects.toThrow(StartRefusedError);
    await expect(refused).rejects.toThrow(
      `the log key in ${join(data_dir, LOG_KEY_FILE)} (${own}) is not the society's`,
    );
    await expect(refused).rejects.toThrow(`signed under ${recorded}, recorded in ${cluster.identity.where}`);
    await expect(refused).rejects.toThrow('Copy log.key from the data folder of a node whose key is the recorded one');
    // Its key is left for the operator to replace, and the log holds nothing from it.
    expect(readFileSync(join(data_dir, LOG_KEY_FILE), 'utf8')).toBe(key_text);
    expect(await cluster.log.lastTick()).toBe(ticks);
    const replica = await node(cluster, { node_id: 'c', role: 'replica', log_key_from: leader.data_dir });
    expect(await (await fetch(`${replica.url}/log/key`)).text()).toContain(recorded);
  });

  it('starts one of two leaders started at once on a new log; the other refuses and keeps no key of its own', async () => {
    const cluster = identityCluster();
    const data_dirs = [folder(), folder()];
    const outcomes = await Promise.allSettled(
      data_dirs.map((data_dir, index) => node(cluster, { node_id: `n${index}`, role: 'leader', data_dir })),
    );
    const winners = outcomes.flatMap((outcome) => (outcome.status === 'fulfilled' ? [outcome.value] : []));
    const refusals = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [outcome.reason] : []));
    expect(winners).toHaveLength(1);
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toBeInstanceOf(StartRefusedError);
    expect(String(refusals[0])).toMatch(/the log key this node made .* The key made now was removed/);
    const recorded = await vkeyOf(winners[0]!.data_dir);
    expect(await cluster.identity.claim(VKEY_A)).toBe(recorded);
    const loser = data_dirs.find((data_dir) => data_dir !== winners[0]!.data_dir)!;
    expect(existsSync(join(loser, LOG_KEY_FILE))).toBe(false);
  });
});
