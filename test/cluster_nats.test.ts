import { copyFileSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { connect } from '@nats-io/transport-node';
import { generateKey, type AgentKey } from '../client/keys.js';
import { TesseraClient } from '../client/sdk.js';
import { LmdbStore } from '../engine/index.js';
import { openNatsTickLog } from '../api/cluster/nats_tick_log.js';
import { LogMovedError } from '../api/cluster/tick_log.js';
import { LOG_KEY_FILE, STORE_FOLDER } from '../api/data_folder.js';
import { verifyStore } from '../api/store_verify.js';
import { startChildServer, type ChildServer } from './helpers/child_server.js';
import {
  eventually,
  leaderAmong,
  ledgerOf,
  OPEN_LIMITS,
  safeJson,
  sleep,
  status,
  streamLeader,
} from './helpers/cluster_processes.js';
import { HAVE_NATS_SERVER, NatsCluster } from '../bench/nats_cluster.js';
import { tempDir } from './helpers/society.js';
import { onThisMachine } from './helpers/machine_pace.js';

/**
 * A replicated society as an operator runs one: three nats-server nodes on loopback
 * (Debian's, as .ci/run installs it), and Tessera nodes as separate processes. Under
 * signed load: replicas hold the leader's ledger; a NATS node's death changes nothing
 * a client sees; the leader's death hands writing to a replica within a bound, losing
 * and doubling nothing acknowledged; the old leader comes back as a follower; a replica
 * bootstrapped from a backup and one killed and restarted catch up; a second writer is
 * refused; and every node's store replays to the same state hash.
 */
/** The default: it outlives a NATS stream leader's election (5 to 7 s), so a NATS node's death moves no lease. */
const LEASE_TTL_MS = 10_000;
/** What the failover is held to: the lease's ttl, a check (1 s), the catch-up, and slack for a busy machine. */
const FAILOVER_BOUND_MS = 15_000;

interface Acknowledged {
  agent_id: string;
  backup_pubkey: string;
  seq: number;
}

const cleanup: (() => Promise<void>)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step().catch(() => undefined);
});

describe.skipIf(!HAVE_NATS_SERVER)('a society replicated on NATS JetStream', () => {
  it('survives the loss of a NATS node and of its leader with every acknowledged act present exactly once', async () => {
    const nats = await NatsCluster.start(3);
    cleanup.push(() => nats.stop());
    const folders = { a: tempDir(), b: tempDir(), c: tempDir(), d: tempDir() };
    cleanup.push(async () => {
      for (const folder of Object.values(folders)) rmSync(folder, { recursive: true, force: true });
    });
    const servers: ChildServer[] = [];
    cleanup.push(async () => {
      for (const server of servers) await server.kill();
    });
    const node = async (name: keyof typeof folders, role: 'leader' | 'replica', nats_nodes: number[]) => {
      const server = await startChildServer({
        DATA_DIR: folders[name],
        LOG_URL: nats.url(...nats_nodes),
        ROLE: role,
        NODE_ID: name,
        LEASE_TTL_MS: String(LEASE_TTL_MS),
        ...OPEN_LIMITS,
      });
      servers.push(server);
      return server;
    };
    const joined = (server: ChildServer) =>
      server.output.map((line) => safeJson(line)).find((line) => line?.cluster === 'joining') as
        | { from_tick: number }
        | undefined;

    // The leader first, then a replica on another NATS node. Replicas share the log key.
    const a = await node('a', 'leader', [0, 1, 2]);
    expect(a.output.join('\n')).toMatch(/leading \(the writer\)/);
    copyFileSync(join(folders.a, LOG_KEY_FILE), join(folders.b, LOG_KEY_FILE));
    const b = await node('b', 'replica', [1, 0, 2]);
    expect(b.output.join('\n')).toMatch(/as node b, following/);

    const agents = await Promise.all(Array.from({ length: 6 }, () => generateKey()));
    const acknowledged: Acknowledged[] = [];
    const errors: string[] = [];
    // Half the agents talk to the leader, half to the replica (which redirects their writes).
    const urls = new Map(agents.map((key, index) => [key.agent_id, [index % 2 ? b.url : a.url]]));
    for (const [index, key] of agents.entries())
      await new TesseraClient(urls.get(key.agent_id)![0]!, key).register(`replicated${index}`);
    let running = true;
    const load = Promise.all(
      agents.map((key) => loadOf(key, urls.get(key.agent_id)!, acknowledged, errors, () => running)),
    );
    const phase = async (until_acks: number) => {
      const started = Date.now();
      const give_up = started + 60_000;
      while (acknowledged.length < until_acks && Date.now() < give_up) await sleep(25);
      // Slow or stalled, what the agents and the nodes last said: a run that passes slowly still shows why.
      if (acknowledged.length < until_acks || Date.now() - started > 10_000)
        console.log(`load phase took ${Date.now() - started} ms`, {
          errors: errors.slice(-6),
          servers: servers.map((server) => server.output.slice(-4)),
        });
      expect(acknowledged.length).toBeGreaterThanOrEqual(until_acks);
    };
    await phase(60);

    // A replica bootstrapped from a backup: the backup's store, the log key, then the log from where the backup ends.
    const founder = new TesseraClient(a.url, await founderKey(folders.a));
    await founder.signed('POST', '/operator/backup', undefined);
    const backups = join(folders.a, 'backups');
    const backup = readdirSync(backups)
      .filter((name) => !name.startsWith('.'))
      .sort()
      .at(-1)!;
    mkdirSync(join(folders.c, STORE_FOLDER));
    copyFileSync(join(backups, backup, 'data.mdb'), join(folders.c, STORE_FOLDER, 'data.mdb'));
    copyFileSync(join(folders.a, LOG_KEY_FILE), join(folders.c, LOG_KEY_FILE));
    await phase(acknowledged.length + 20);
    const c = await node('c', 'replica', [2, 0, 1]);
    expect(joined(c)!.from_tick).toBeGreaterThan(1);

    // One NATS node dies under load, the one leading the lease's stream (the worst one to lose): a quorum of
    // two goes on after an election, the lease stays where it is, and no client sees a thing.
    const errors_before = errors.length;
    const lease_leader = await streamLeader(nats, 'KV_tessera_lease');
    await nats.killNode(lease_leader);
    await phase(acknowledged.length + 60);
    // Past the election (5 to 7 s) and a whole lease ttl: a lapse would have moved the lease by now.
    await sleep(LEASE_TTL_MS);
    await phase(acknowledged.length + 10);
    expect(errors.slice(errors_before)).toEqual([]);
    for (const server of [b, c]) expect(server.output.join('\n')).not.toMatch(/"cluster":"leading"/);
    expect(a.output.join('\n')).not.toMatch(/fenced/);
    nats.startNode(lease_leader);

    // The leader dies under load. Its agents go to the replicas from now on; a replica takes the lease.
    for (const list of urls.values()) list.splice(0, list.length, b.url, c.url);
    const acknowledged_before_kill = acknowledged.length;
    const killed_at = Date.now();
    await a.kill('SIGKILL');
    const new_leader = await leaderAmong([b, c], 25_000);
    const failover_ms = Date.now() - killed_at;
    console.log(`failover: a replica wrote again ${failover_ms} ms after the leader's SIGKILL`);
    expect(failover_ms).toBeLessThan(onThisMachine(FAILOVER_BOUND_MS, LEASE_TTL_MS));
    await phase(acknowledged_before_kill + 60);

    // The old leader, started again, is fenced: it follows and redirects its writes.
    const a_again = await node('a', 'leader', [0, 1, 2]);
    expect(a_again.output.join('\n')).toMatch(/following/);
    const redirected = await fetch(`${a_again.url}/api/v1/register`, { method: 'POST', redirect: 'manual' });
    expect(redirected.status).toBe(307);
    expect(redirected.headers.get('location')).toBe(`${new_leader.url}/api/v1/register`);

    // A second writer by mistake: a fresh node told to lead finds the lease held and follows.
    copyFileSync(join(folders.a, LOG_KEY_FILE), join(folders.d, LOG_KEY_FILE));
    const d = await node('d', 'leader', [1]);
    expect(d.output.join('\n')).toMatch(/following/);
    // And a writer that ignores the lease cannot begin a term without the log's last tick.
    const connection = await connect({ servers: nats.url().split(',') });
    const log = await openNatsTickLog(connection, { stream: 'tessera_ticks', replicas: 3 });
    const last = await log.lastTick();
    await expect(log.beginTerm('intruder', last - 1)).rejects.toBeInstanceOf(LogMovedError);
    expect(await log.lastTick()).toBeGreaterThanOrEqual(last);
    await connection.close();

    // A replica killed and started again catches up.
    const replica = new_leader === b ? c : b;
    await replica.kill('SIGKILL');
    servers.splice(servers.indexOf(replica), 1);
    await phase(acknowledged.length + 30);
    const replica_again = await node(replica === b ? 'b' : 'c', 'replica', [0, 1, 2]);
    expect(joined(replica_again)!.from_tick).toBeGreaterThan(1);

    running = false;
    await load;
    const live = [new_leader, replica_again, a_again, d];
    await eventually(async () => {
      const heads = await Promise.all(live.map(async (server) => (await status(server.url)).ledger));
      for (const head of heads) expect(head).toEqual(heads[0]);
    });

    // Every acknowledged act is on the ledger once, at the seq it was acknowledged with.
    const entries = await ledgerOf(new_leader.url);
    const by_backup_key = new Map<string, number[]>();
    for (const entry of entries) {
      if (entry.event_type !== 'key_backup_registered') continue;
      const key = String(entry.data.backup_pubkey);
      by_backup_key.set(key, [...(by_backup_key.get(key) ?? []), entry.seq]);
    }
    for (const act of acknowledged) {
      expect(by_backup_key.get(act.backup_pubkey)).toEqual([act.seq]);
      expect(entries[act.seq - 1]!.actor).toBe(act.agent_id);
    }
    expect(errors.filter((error) => !/fetch failed|ECONNREFUSED|other side closed|NONCE_INVALID/.test(error))).toEqual(
      [],
    );

    // Every node's store, stopped, replays from its own log to the same state.
    for (const server of live) await server.kill('SIGTERM');
    const hashes = [];
    for (const name of ['a', 'b', 'c', 'd'] as const) {
      const store = new LmdbStore(join(folders[name], STORE_FOLDER), { existing_only: true });
      const verified = await verifyStore(store, { proofs: true });
      await store.close();
      expect(verified.ok).toBe(true);
      if (verified.ok) hashes.push(verified.state_hash);
    }
    expect(new Set(hashes).size).toBe(1);
  }, 240_000);
});

/** One agent replacing its backup key over and over, recording what was answered 2xx; tries its next URL (round the list) after a failure. */
async function loadOf(
  key: AgentKey,
  urls: string[],
  acknowledged: Acknowledged[],
  errors: string[],
  running: () => boolean,
): Promise<void> {
  let at = 0;
  while (running()) {
    const backup = await generateKey();
    const url = urls[at % urls.length]!;
    try {
      const answer = await new TesseraClient(url, key).registerBackupKey(backup.public_key);
      acknowledged.push({
        agent_id: key.agent_id,
        backup_pubkey: backup.public_key,
        seq: (answer as unknown as { ledger: { first_seq: number } }).ledger.first_seq,
      });
    } catch (error) {
      errors.push(`${url}: ${String(error)} ${String((error as { cause?: unknown }).cause ?? '')}`);
      at = (at + 1) % urls.length;
      await sleep(50);
    }
  }
}

async function founderKey(data_dir: string) {
  const { parseKeyFile } = await import('../client/keys.js');
  const { readFileSync } = await import('node:fs');
  return parseKeyFile(JSON.parse(readFileSync(join(data_dir, 'founder.key.json'), 'utf8')));
}
