import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { newTenure, type LeaderLease, type LeaseHolder } from './leader_lease.js';

const KEY = 'leader';

/**
 * The leader lease as one key in a JetStream key-value bucket whose entries expire
 * after ttl_ms. Taking is `create` (refused while the key exists), renewing is `update`
 * at the revision this node last wrote (refused once anyone else wrote after it).
 *
 * The server removes an expired entry only some time after its ttl (about another ttl,
 * measured), so a watcher does not wait for that: a holder renews every second, and an
 * entry this node has read at the same revision, read after read without a failure, for
 * a whole ttl of its own clock was not renewed for at least that long. It counts as
 * free, and is taken with `update` at that revision, which fails if the holder renewed
 * after all. Only clock rates are compared, never two machines' clocks. A failed read
 * starts the watch again: while NATS elects a stream leader, nobody can renew, and that
 * is no sign that the holder is gone.
 */
export class NatsLease implements LeaderLease {
  private revision = 0;
  private mine: LeaseHolder | undefined;
  /** The holder's entry as this node last saw it change: its revision, and when (monotonic ms). */
  private seen: { revision: number; since_ms: number } | undefined;

  private constructor(
    private readonly kv: KV,
    readonly ttl_ms: number,
  ) {}

  static async open(connection: NatsConnection, bucket: string, ttl_ms: number, replicas: number): Promise<NatsLease> {
    // Short requests: a renewal that hangs through a stream leader's election is retried at the next check instead.
    const kv = await new Kvm(jetstream(connection, { timeout: 2000 })).create(bucket, {
      ttl: ttl_ms,
      history: 1,
      replicas,
    });
    return new NatsLease(kv, ttl_ms);
  }

  async holder(): Promise<LeaseHolder | undefined> {
    let entry;
    try {
      entry = await this.kv.get(KEY);
    } catch (error) {
      this.seen = undefined;
      throw error;
    }
    if (!entry || entry.operation !== 'PUT') {
      // Gone (expired or given up): it is taken with create.
      this.seen = undefined;
      return undefined;
    }
    const holder = entry.json<LeaseHolder>();
    if (this.seen?.revision !== entry.revision) this.seen = { revision: entry.revision, since_ms: performance.now() };
    else if (this.lapsedRevision() !== undefined && holder.term !== this.mine?.term) return undefined;
    return holder;
  }

  /** The revision this node has read unchanged for a whole ttl: its holder stopped renewing. */
  private lapsedRevision(): number | undefined {
    return this.seen && performance.now() - this.seen.since_ms >= this.ttl_ms ? this.seen.revision : undefined;
  }

  async take(node: string, url: string): Promise<LeaseHolder | undefined> {
    const tenure = newTenure(node, url);
    const lapsed = this.lapsedRevision();
    try {
      this.revision =
        lapsed === undefined
          ? await this.kv.create(KEY, JSON.stringify(tenure))
          : await this.kv.update(KEY, JSON.stringify(tenure), lapsed);
    } catch (error) {
      if (!isWrongRevision(error)) throw error;
      // A write that timed out may still have landed: then the entry holds this tenure.
      if (!(await this.adoptIfMine(tenure))) return undefined;
    }
    this.mine = tenure;
    return tenure;
  }

  async renew(): Promise<boolean> {
    if (!this.mine) return false;
    try {
      this.revision = await this.kv.update(KEY, JSON.stringify(this.mine), this.revision);
      return true;
    } catch (error) {
      if (!isWrongRevision(error)) throw error;
      // A renewal that timed out (a NATS node's election) may have landed after all: the revision moved, but to ours.
      if (await this.adoptIfMine(this.mine)) return true;
      this.mine = undefined;
      return false;
    }
  }

  /** Whether the entry now holds this tenure (a write of ours whose answer was lost); if so, its revision is ours. */
  private async adoptIfMine(tenure: LeaseHolder): Promise<boolean> {
    const entry = await this.kv.get(KEY);
    if (!entry || entry.operation !== 'PUT' || entry.json<LeaseHolder>().term !== tenure.term) return false;
    this.revision = entry.revision;
    return true;
  }

  async release(): Promise<void> {
    if (!this.mine) return;
    this.mine = undefined;
    await this.kv.delete(KEY, { previousSeq: this.revision }).catch(() => undefined);
  }
}

/** Create and update refused because the key is not at the revision asked for. */
function isWrongRevision(error: unknown): boolean {
  return error instanceof Error && /wrong last sequence/i.test(error.message);
}
