import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { hostClock, type ClusterClock } from './cluster_clock.js';
import { BucketLease, WrongRevisionError, type LeaseBucket } from './leader_lease.js';

const KEY = 'leader';

/** The lease on a JetStream key-value bucket whose entries expire after ttl_ms (BucketLease has the rules). */
export async function openNatsLease(
  connection: NatsConnection,
  bucket: string,
  ttl_ms: number,
  replicas: number,
  clock: ClusterClock = hostClock,
): Promise<BucketLease> {
  // Short requests: a renewal that hangs through a stream leader's election is retried at the next check instead.
  const kv = await new Kvm(jetstream(connection, { timeout: 2000 })).create(bucket, {
    ttl: ttl_ms,
    history: 1,
    replicas,
    // Reads through the stream's leader, never a direct get that any replica may answer: a replica behind the
    // leader could show a holder its own overwritten tenure, and it would count a lost renewal as landed.
    allow_direct: false,
  });
  return new BucketLease(new KvLeaseBucket(kv), ttl_ms, clock);
}

class KvLeaseBucket implements LeaseBucket {
  constructor(private readonly kv: KV) {}

  async get() {
    const entry = await this.kv.get(KEY);
    return entry && entry.operation === 'PUT' ? { revision: entry.revision, value: entry.string() } : undefined;
  }

  create(value: string) {
    return refusedAsWrongRevision(this.kv.create(KEY, value));
  }

  update(value: string, revision: number) {
    return refusedAsWrongRevision(this.kv.update(KEY, value, revision));
  }

  async delete(revision: number) {
    await refusedAsWrongRevision(this.kv.delete(KEY, { previousSeq: revision }));
  }
}

/** Create and update refused because the key is not at the revision asked for. */
async function refusedAsWrongRevision<T>(write: Promise<T>): Promise<T> {
  try {
    return await write;
  } catch (error) {
    if (error instanceof Error && /wrong last sequence/i.test(error.message))
      throw new WrongRevisionError(error.message);
    throw error;
  }
}
