import { randomUUID } from 'node:crypto';

/** Who writes: a node's id, the URL its writes are sent to, and the term of this tenure. */
export interface LeaseHolder {
  node: string;
  url: string;
  /** New at every take: the writer's name in the tick log, so a resend by another tenure is never taken as its own. */
  term: string;
}

/**
 * The right to write, held by one node at a time and lost when it is not renewed
 * within ttl_ms. Taken only when nobody holds it (a compare-and-set), renewed only by
 * its holder (compare-and-set on the revision it last wrote). Over a JetStream
 * key-value bucket (nats_lease.ts) or in process (MemoryLease).
 */
export interface LeaderLease {
  readonly ttl_ms: number;
  /** The holder now, if anyone holds the lease. */
  holder(): Promise<LeaseHolder | undefined>;
  /** Takes the lease if nobody holds it: the new tenure, or undefined if someone does. */
  take(node: string, url: string): Promise<LeaseHolder | undefined>;
  /** Renews our tenure: false if it is no longer ours (it lapsed and another node took it). */
  renew(): Promise<boolean>;
  /** Gives the lease up at once (a clean shutdown), so another node need not wait out the ttl. */
  release(): Promise<void>;
}

export function newTenure(node: string, url: string): LeaseHolder {
  return { node, url, term: randomUUID() };
}

/** The lease in one process, for unit tests: time is the test's clock. */
export class MemoryLease implements LeaderLease {
  private static readonly held = new WeakMap<object, { holder: LeaseHolder; renewed_ms: number }>();

  constructor(
    private readonly shared: object,
    readonly ttl_ms: number,
    private readonly clock: () => number,
  ) {}

  private mine: LeaseHolder | undefined;

  private current() {
    const entry = MemoryLease.held.get(this.shared);
    return entry && this.clock() - entry.renewed_ms < this.ttl_ms ? entry : undefined;
  }

  async holder(): Promise<LeaseHolder | undefined> {
    return this.current()?.holder;
  }

  async take(node: string, url: string): Promise<LeaseHolder | undefined> {
    if (this.current()) return undefined;
    this.mine = newTenure(node, url);
    MemoryLease.held.set(this.shared, { holder: this.mine, renewed_ms: this.clock() });
    return this.mine;
  }

  async renew(): Promise<boolean> {
    const entry = this.current();
    if (!this.mine || entry?.holder.term !== this.mine.term) return false;
    entry.renewed_ms = this.clock();
    return true;
  }

  async release(): Promise<void> {
    if (this.mine && this.current()?.holder.term === this.mine.term) MemoryLease.held.delete(this.shared);
    this.mine = undefined;
  }
}
