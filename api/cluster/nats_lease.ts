import type { NatsConnection } from '@nats-io/transport-node';
import { Kvm, type KV } from '@nats-io/kv';
import { newTenure, type LeaderLease, type LeaseHolder } from './leader_lease.js';

const KEY = 'leader';

/**
 * The leader lease as one key in a JetStream key-value bucket whose entries expire
 * after ttl_ms: the server's clock expires it, so no two nodes' clocks are compared.
 * Taking is `create` (refused while the key exists), renewing is `update` at the
 * revision this node last wrote (refused once anyone else wrote after it).
 */
export class NatsLease implements LeaderLease {
  private revision = 0;
  private mine: LeaseHolder | undefined;

  private constructor(
    private readonly kv: KV,
    readonly ttl_ms: number,
  ) {}

  static async open(connection: NatsConnection, bucket: string, ttl_ms: number, replicas: number): Promise<NatsLease> {
    const kv = await new Kvm(connection).create(bucket, { ttl: ttl_ms, history: 1, replicas });
    return new NatsLease(kv, ttl_ms);
  }

  async holder(): Promise<LeaseHolder | undefined> {
    const entry = await this.kv.get(KEY);
    if (!entry || entry.operation !== 'PUT') return undefined;
    return entry.json<LeaseHolder>();
  }

  async take(node: string, url: string): Promise<LeaseHolder | undefined> {
    const tenure = newTenure(node, url);
    try {
      this.revision = await this.kv.create(KEY, JSON.stringify(tenure));
    } catch (error) {
      if (isWrongRevision(error)) return undefined;
      throw error;
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
      if (isWrongRevision(error)) {
        this.mine = undefined;
        return false;
      }
      throw error;
    }
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
