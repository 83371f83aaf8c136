import { randomUUID } from 'node:crypto';
import type { ClusterClock } from './cluster_clock.js';

/** Who writes: a node's id, the URL its writes are sent to, and the term of this tenure. */
export interface LeaseHolder {
  node: string;
  url: string;
  /** New at every take: the term the writer starts in the tick log, which fences every earlier one. */
  term: string;
}

/**
 * The right to write, held by one node at a time and lost when it is not renewed
 * within ttl_ms. Taken only when nobody holds it (a compare-and-set), renewed only by
 * its holder (compare-and-set on the revision it last wrote). The lease only decides who
 * should write; what keeps an old holder from writing is the tick log's term fence.
 */
export interface LeaderLease {
  readonly ttl_ms: number;
  /** The holder now, if anyone holds the lease. */
  holder(): Promise<LeaseHolder | undefined>;
  /** Takes the lease if nobody holds it: the new tenure, or undefined if someone does. */
  take(node: string, url: string): Promise<LeaseHolder | undefined>;
  /**
   * Renews our tenure: false if it is no longer ours. An entry that expired on the server
   * (nobody could renew for a ttl) is written again only if `still_current` says no term has
   * begun since ours: a holder that was paused meanwhile may have been superseded, and its
   * successor's entry may have expired in turn.
   */
  renew(still_current?: () => Promise<boolean>): Promise<boolean>;
  /** Gives the lease up at once (a clean shutdown), so another node need not wait out the ttl. */
  release(): Promise<void>;
  /** How long the holder's entry has read unchanged here (0 just after it changed, or when not read). */
  unchangedForMs(): number;
}

/** One key of a key-value store with revisions: a JetStream bucket (nats_lease.ts) or memory (memory_lease_bucket.ts). */
export interface LeaseBucket {
  /** The entry, or undefined if there is none (never written, deleted or expired). */
  get(): Promise<{ revision: number; value: string } | undefined>;
  /** Writes if there is no entry: its revision. WrongRevisionError if there is one. */
  create(value: string): Promise<number>;
  /** Writes if the entry is at `revision`: the new revision. WrongRevisionError otherwise. */
  update(value: string, revision: number): Promise<number>;
  /** Deletes the entry if it is at `revision`. */
  delete(revision: number): Promise<void>;
}

/** The bucket refused a write: the key is not at the revision asked for (or exists, for a create). */
export class WrongRevisionError extends Error {
  override name = 'WrongRevisionError';
}

export type TermMaker = () => string;

/**
 * The lease as one key in a bucket whose entries expire after ttl_ms. Taking is
 * `create` (refused while the key exists), renewing is `update` at the revision this
 * node last wrote (refused once anyone else wrote after it).
 *
 * JetStream removes an expired entry only some time after its ttl (about another ttl,
 * measured), so a watcher does not wait for that: a holder renews every second, and an
 * entry this node has read at the same revision, read after read without a failure, for
 * a whole ttl of its own clock was not renewed for at least that long. It counts as
 * free, and is taken with `update` at that revision, which fails if the holder renewed
 * after all. Only clock rates are compared, never two machines' clocks. A failed read
 * starts the watch again: while NATS elects a stream leader, nobody can renew, and that
 * is no sign that the holder is gone.
 */
export class BucketLease implements LeaderLease {
  private revision = 0;
  private mine: LeaseHolder | undefined;
  /** The holder's entry as this node last saw it change: its revision, and when. */
  private seen: { revision: number; since_ms: number } | undefined;

  constructor(
    private readonly bucket: LeaseBucket,
    readonly ttl_ms: number,
    private readonly clock: Pick<ClusterClock, 'now_ms'>,
    private readonly newTerm: TermMaker = randomUUID,
  ) {}

  async holder(): Promise<LeaseHolder | undefined> {
    let entry;
    try {
      entry = await this.bucket.get();
    } catch (error) {
      this.seen = undefined;
      throw error;
    }
    if (!entry) {
      // Gone (expired or given up): it is taken with create.
      this.seen = undefined;
      return undefined;
    }
    const holder = JSON.parse(entry.value) as LeaseHolder;
    if (this.seen?.revision !== entry.revision) this.seen = { revision: entry.revision, since_ms: this.clock.now_ms() };
    else if (this.lapsedRevision() !== undefined && holder.term !== this.mine?.term) return undefined;
    return holder;
  }

  /** How long this node has read the holder's entry unchanged (0 when it just changed or was not read). */
  unchangedForMs(): number {
    return this.seen ? this.clock.now_ms() - this.seen.since_ms : 0;
  }

  /** The revision this node has read unchanged for a whole ttl: its holder stopped renewing. */
  private lapsedRevision(): number | undefined {
    return this.seen && this.clock.now_ms() - this.seen.since_ms >= this.ttl_ms ? this.seen.revision : undefined;
  }

  async take(node: string, url: string): Promise<LeaseHolder | undefined> {
    const tenure: LeaseHolder = { node, url, term: this.newTerm() };
    const lapsed = this.lapsedRevision();
    try {
      this.revision =
        lapsed === undefined
          ? await this.bucket.create(JSON.stringify(tenure))
          : await this.bucket.update(JSON.stringify(tenure), lapsed);
    } catch (error) {
      if (!(error instanceof WrongRevisionError)) throw error;
      // A write that timed out may still have landed: then the entry holds this tenure.
      if (!(await this.adoptIfMine(tenure))) return undefined;
    }
    this.mine = tenure;
    return tenure;
  }

  async renew(still_current?: () => Promise<boolean>): Promise<boolean> {
    if (!this.mine) return false;
    try {
      this.revision = await this.bucket.update(JSON.stringify(this.mine), this.revision);
      return true;
    } catch (error) {
      if (!(error instanceof WrongRevisionError)) throw error;
      // A renewal that timed out (a NATS node's election) may have landed after all: the revision moved, but to ours.
      if (await this.adoptIfMine(this.mine)) return true;
      const entry = await this.bucket.get();
      if (!entry && (await still_current?.())) return this.retake(this.mine);
      this.mine = undefined;
      return false;
    }
  }

  /**
   * The entry expired before a renewal reached it (NATS was unreachable for a ttl), nobody
   * holds it, and no term has begun in the log since the holder's: it writes the entry again
   * under the same term. Without that last check a holder paused through another node's
   * whole tenure would take the lease back and answer requests about acts it never saw.
   */
  private async retake(tenure: LeaseHolder): Promise<boolean> {
    try {
      this.revision = await this.bucket.create(JSON.stringify(tenure));
      return true;
    } catch (error) {
      if (!(error instanceof WrongRevisionError)) throw error;
      if (await this.adoptIfMine(tenure)) return true;
      this.mine = undefined;
      return false;
    }
  }

  /** Whether the entry now holds this tenure (a write of ours whose answer was lost); if so, its revision is ours. */
  private async adoptIfMine(tenure: LeaseHolder): Promise<boolean> {
    const entry = await this.bucket.get();
    if (!entry || (JSON.parse(entry.value) as LeaseHolder).term !== tenure.term) return false;
    this.revision = entry.revision;
    return true;
  }

  async release(): Promise<void> {
    if (!this.mine) return;
    this.mine = undefined;
    await this.bucket.delete(this.revision).catch(() => undefined);
  }
}
