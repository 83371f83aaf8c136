import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connect, type NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { Kvm } from '@nats-io/kv';
import { openNatsLease } from '../api/cluster/nats_lease.js';
import type { BucketLease } from '../api/cluster/leader_lease.js';
import { HAVE_NATS_SERVER, NatsCluster } from '../bench/nats_cluster.js';

/**
 * The lease on a real JetStream key-value bucket: one holder at a time, a lapse seen by
 * the others only after a whole ttl without a renewal, and a renewal whose answer was lost
 * but which landed is recognised as the holder's own.
 */
let nats: NatsCluster;
const connections: NatsConnection[] = [];
const TTL_MS = 1500;

beforeAll(async () => {
  if (!HAVE_NATS_SERVER) return;
  nats = await NatsCluster.start(3);
});
afterAll(async () => {
  for (const connection of connections) await connection.close();
  await nats?.stop();
});

async function lease(bucket: string): Promise<BucketLease> {
  const connection = await connect({ servers: nats.url().split(',') });
  connections.push(connection);
  return openNatsLease(connection, bucket, TTL_MS, 3);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.skipIf(!HAVE_NATS_SERVER)('the leader lease on NATS', () => {
  it('has one holder; another node takes it only after a whole ttl without a renewal, and the old holder is refused', async () => {
    const first = await lease('lease_take');
    const second = await lease('lease_take');
    const tenure = await first.take('a', 'http://a');
    expect(tenure?.node).toBe('a');
    expect(await second.take('b', 'http://b')).toBeUndefined();
    expect((await second.holder())?.node).toBe('a');
    // Renewed every few hundred ms, the lease never lapses for the watcher.
    for (let round = 0; round < 8; round++) {
      await sleep(TTL_MS / 4);
      expect(await first.renew()).toBe(true);
      expect((await second.holder())?.term).toBe(tenure!.term);
    }
    // The holder goes quiet: after a whole ttl of the same revision the watcher sees it free and takes it.
    const quiet_at = performance.now();
    let taken;
    while (!taken) {
      if ((await second.holder()) === undefined) taken = await second.take('b', 'http://b');
      else await sleep(100);
    }
    expect(performance.now() - quiet_at).toBeGreaterThanOrEqual(TTL_MS);
    expect(await first.renew()).toBe(false);
    expect((await first.holder())?.node).toBe('b');
  });

  it('recognises a renewal that landed although its answer was lost', async () => {
    const holder = await lease('lease_adopt');
    const tenure = (await holder.take('a', 'http://a'))!;
    // The renewal lands, but its answer never comes back: the revision moved without this node knowing.
    const connection = await connect({ servers: nats.url().split(',') });
    connections.push(connection);
    const kv = await new Kvm(jetstream(connection)).open('lease_adopt');
    const entry = (await kv.get('leader'))!;
    await kv.update('leader', JSON.stringify(tenure), entry.revision);
    expect(await holder.renew()).toBe(true);
    // Someone else's write is not adopted.
    const current = (await kv.get('leader'))!;
    await kv.update('leader', JSON.stringify({ ...tenure, term: 'another' }), current.revision);
    expect(await holder.renew()).toBe(false);
  });
});
