import { DivergedLogError, storedTicks, type Engine, type ReplicatedTick } from '../../engine/index.js';
import { backoffMs, hostClock, type ClusterClock } from './cluster_clock.js';
import type { LeaderLease, LeaseHolder } from './leader_lease.js';
import { FollowedTickCheck } from './followed_check.js';
import type { ReplicatedStore } from './replicated_store.js';
import { FencedError, LogMovedError, type LogFollower, type TermWriter, type TickLog } from './tick_log.js';

export type NodeRole = 'leader' | 'replica';

export interface ClusterNodeOptions {
  node_id: string;
  /** Where this node's writes are sent when it leads: its public URL (known once it listens). */
  url: () => string;
  /**
   * leader: takes the lease at start if it is free. replica: follows, and takes the lease
   * only when it has been free for a whole ttl (the leader is gone), if `eligible`.
   */
  role: NodeRole;
  /** false: never leads (a replica that only serves reads). */
  eligible: boolean;
  /**
   * Whether this node holds a genesis to found the society with (its Founder key, or a
   * founder_pubkey in GENESIS_FILE). One that does not never takes the lease of an empty
   * log: it would have nothing to found with, and leaves it to a node that has.
   */
  can_found: boolean;
  engine: Engine;
  store: ReplicatedStore;
  log: TickLog;
  lease: LeaderLease;
  /** The host's monotonic clock and timers; the simulator's own in `npm run simulate`. */
  clock?: ClusterClock;
  /** What the node does once it writes: found an empty society, record the payment mode, start backups and pulses. */
  on_lead: () => Promise<void>;
  /**
   * This node can no longer write: a renewal of its lease was refused (another node holds
   * it). Its memory may hold ticks nobody will see; the host must stop (and may restart as
   * a follower, which resumes from its store). A refused append reaches the host as the
   * engine's failed commit (StaleWriterError).
   */
  on_fenced: (why: string) => void;
  /** A followed tick that does not replay here: the store is not this log's. The host must stop. */
  on_diverged: (error: unknown) => void;
  /** Coming to lead failed otherwise (on_lead threw): a bug, not a divergence. The host must stop. */
  on_failed: (error: unknown) => void;
  log_line?: (line: Record<string, unknown>) => void;
}

/**
 * One node of a replicated society. It follows the tick log into its engine, watches the
 * lease, and becomes the writer when it holds the lease: it stops following, applies
 * whatever the log has that it does not, begins its term in the log (which from then on
 * refuses every earlier term's appends), and only then lets its engine write, through a
 * store that appends to the log first.
 *
 * The lease decides who should write; the term fence makes an old writer harmless, even
 * one that was paused and wakes up with a tick in hand. A writer gives up (on_fenced) as
 * soon as a renewal is refused. It does not give up merely because it cannot reach NATS
 * for a while: that is what a NATS node's death looks like for the seconds its streams
 * elect new leaders (5 to 7 s measured for nats-server 2.9). Meanwhile it refuses new
 * writes at once (503 NOT_LEADER) rather than let them wait. Every NATS call that fails
 * is tried again, with backoff; a node stops only when fenced or on a real divergence.
 */
export class ClusterNode {
  private follower: LogFollower | undefined;
  /** This node's term in the log, once it writes. */
  private writer: TermWriter | undefined;
  private tenure: LeaseHolder | undefined;
  private known_leader: LeaseHolder | undefined;
  private stop_timer: (() => void) | undefined;
  private free_since_ms: number | undefined;
  private stopped = false;
  private busy = false;
  /** The log's last tick as last seen, for the lag metric. */
  private log_last_tick = 0;
  private promoting = false;
  private promotion: Promise<void> | undefined;
  private check: FollowedTickCheck | undefined;
  private seen_a_leader = false;
  private readonly clock: ClusterClock;
  /** When this node last applied a followed tick, to notice a follower that stalled. */
  private last_applied_ms: number;
  /** When the lease was last renewed by this node (its holder), to refuse writes while NATS is unreachable. */
  private renewed_ms = 0;
  /**
   * This node could not read the lease for a while (NATS lost its quorum, say). A lease
   * found free afterwards may have expired on the server while its holder could not renew
   * either: the holder writes it again at its next renewal, so it is left a ttl to do so.
   */
  private lost_sight_of_lease = false;

  constructor(private readonly options: ClusterNodeOptions) {
    this.clock = options.clock ?? hostClock;
    this.last_applied_ms = this.clock.now_ms();
  }

  /** Whether this node is the writer now. */
  get leading(): boolean {
    return this.tenure !== undefined && !this.promoting;
  }

  /**
   * Whether a write sent now would be taken: this node leads and renewed its lease lately.
   * A leader that has not reached NATS for two renewals would keep a write waiting for an
   * append that cannot land; it is refused at once instead, nothing spent.
   */
  get writable(): boolean {
    return this.leading && this.clock.now_ms() - this.renewed_ms < 2 * checkEveryMs(this.options.lease.ttl_ms) + 500;
  }

  /**
   * The writer's URL as last seen, if another node holds the lease and renews it. Undefined
   * while this node leads or is becoming the writer, while nobody holds the lease, and when
   * the holder has not renewed for three checks (it is probably gone: a redirect there
   * would only fail).
   */
  get leader_url(): string | undefined {
    if (this.tenure || !this.known_leader) return undefined;
    if (this.options.lease.unchangedForMs() > 3 * checkEveryMs(this.options.lease.ttl_ms) + 500) return undefined;
    return this.known_leader.url;
  }

  /** Ticks the log has that this node has not applied yet (as last seen). */
  get lag_ticks(): number {
    return Math.max(0, this.log_last_tick - this.options.engine.state.tick);
  }

  /**
   * Applies everything the log holds now: before the node serves anything, so that it
   * never shows a society it has not caught up with (or one not founded yet).
   */
  async catchUp(): Promise<void> {
    this.options.log_line?.({
      cluster: 'joining',
      node: this.options.node_id,
      role: this.options.role,
      from_tick: this.options.engine.state.tick,
    });
    await this.applyLog();
  }

  /**
   * Follows the log from where the node is and watches the lease; a leader node that finds
   * the lease free leads before this resolves.
   */
  async start(): Promise<void> {
    await this.applyLog();
    this.follow();
    await this.watch();
    await this.promotion;
    this.stop_timer = this.clock.every(checkEveryMs(this.options.lease.ttl_ms), () => void this.watch());
  }

  /** Stops following and watching; a writer releases its lease, so another node takes over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    this.stop_timer?.();
    // A promotion under way sees `stopped` at its next step and abandons its term; it is not awaited, as NATS may be down.
    await this.follower?.stop();
    if (this.tenure) await this.options.lease.release().catch(() => undefined);
  }

  private follow(): void {
    const { engine, log } = this.options;
    this.follower = log.follow(
      engine.state.tick,
      (tick) => this.apply(tick),
      (error) => this.options.on_diverged(error),
    );
  }

  private async apply(tick: ReplicatedTick): Promise<void> {
    // A resumed consumer may hand over a tick this node already applied in its catch-up.
    const { engine } = this.options;
    if (tick.record.tick <= engine.state.tick) return;
    this.check ??= new FollowedTickCheck(engine.state);
    await engine.follow(tick, (entries) => this.check!.check(entries));
    this.last_applied_ms = this.clock.now_ms();
    this.log_last_tick = Math.max(this.log_last_tick, tick.record.tick);
  }

  /** Reads and applies the log's ticks after this node's, up to the log's end as it is now. */
  private async applyLog(): Promise<void> {
    const { engine, log } = this.options;
    this.log_last_tick = await this.retried('read the log’s end', () => log.lastTick());
    await this.checkSameHistory();
    for (let next = engine.state.tick + 1; next <= this.log_last_tick; next++) {
      const tick = await this.retried(`read tick ${next}`, () => log.read(next));
      if (!tick) throw new Error(`the log says it ends at tick ${this.log_last_tick} but has no tick ${next}`);
      await this.apply(tick);
    }
  }

  /** A NATS call tried until it answers, with backoff: a timeout or an election is no reason to stop. */
  private async retried<T>(what: string, call: () => Promise<T>): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (this.stopped) throw error;
        this.options.log_line?.({
          cluster: 'retrying',
          node: this.options.node_id,
          what,
          attempt,
          error: String(error),
        });
        await this.clock.sleep(backoffMs(attempt));
      }
    }
  }

  private async watch(): Promise<void> {
    if (this.busy || this.stopped) return;
    this.busy = true;
    try {
      if (this.tenure) await this.renew();
      else {
        await this.lookForLeader();
        await this.restartStalledFollower();
      }
    } catch (error) {
      if (!this.tenure) this.lost_sight_of_lease = true;
      this.options.log_line?.({ cluster: 'lease check failed', node: this.options.node_id, error: String(error) });
    } finally {
      this.busy = false;
    }
  }

  private async renew(): Promise<void> {
    const still_current = async () => (await this.writer?.stillCurrent()) ?? false;
    if (await this.options.lease.renew(still_current)) this.renewed_ms = this.clock.now_ms();
    else this.fence('another node took the lease');
  }

  private async lookForLeader(): Promise<void> {
    const { lease, role, eligible, node_id, url } = this.options;
    const holder = await lease.holder();
    this.known_leader = holder;
    if (holder) this.seen_a_leader = true;
    this.log_last_tick = Math.max(this.log_last_tick, await this.options.log.lastTick());
    if (holder || !eligible) {
      this.free_since_ms = undefined;
      if (holder) this.lost_sight_of_lease = false;
      return;
    }
    const now_ms = this.clock.now_ms();
    this.free_since_ms ??= now_ms;
    if (this.lost_sight_of_lease && now_ms - this.free_since_ms < lease.ttl_ms) return;
    // A node that has applied the whole log competes at once; one behind leaves it a ttl, then takes it
    // anyway (it applies the rest from the log before it writes): someone must write.
    if (this.lag_ticks > 0 && now_ms - this.free_since_ms < lease.ttl_ms) return;
    // At a cluster's start a replica leaves a free lease to the leader node for one ttl, so
    // the cluster begins with the writer it was meant to have; once a leader was seen and
    // its lease lapsed (the server's ttl), there is nothing more to wait for.
    if (role === 'replica' && !this.seen_a_leader && now_ms - this.free_since_ms < lease.ttl_ms) return;
    if (this.log_last_tick === 0 && !this.options.can_found) return;
    if (this.stopped) return;
    const tenure = await lease.take(node_id, url());
    if (!tenure) return;
    this.lost_sight_of_lease = false;
    this.tenure = tenure;
    this.known_leader = tenure;
    this.renewed_ms = this.clock.now_ms();
    // Not awaited: the lease is renewed on schedule while the log is caught up.
    this.promotion = this.promote(tenure).catch((error) => this.promotionFailed(error));
  }

  /**
   * Whether the log and this store tell one history as far as both go: the log's tick at
   * the shorter end published a head this store holds. A store of another society, or
   * one restored from a backup of another log, is refused before it follows or writes.
   */
  private async checkSameHistory(): Promise<void> {
    const { engine, log, store } = this.options;
    const common = Math.min(this.log_last_tick, engine.state.tick);
    if (common === 0) return;
    const tick = await this.retried(`read tick ${common}`, () => log.read(common));
    const head = tick?.ledger_head;
    if (!head || store.ledgerHash(head.seq) !== head.hash)
      throw new DivergedLogError(
        common,
        `the replicated log's tick ${common} ends at seq ${head?.seq} ${head?.hash}, which this store does not hold: it is not this log's store`,
      );
  }

  /**
   * Catches up and begins this node's term in the log. A tick an earlier writer appended
   * late, after this node read the log's end, makes the log refuse the term's start:
   * that tick is history (its writer may have answered for it), so it is applied, and the
   * term begun again after it.
   */
  private async beginTerm(term: string): Promise<TermWriter> {
    const { engine, log } = this.options;
    for (let attempt = 0; ; attempt++) {
      await this.applyLog();
      // A store ahead of the log (a society that ran on one machine) begins after the log's end and seeds it.
      const after_tick = Math.min(engine.state.tick, this.log_last_tick);
      try {
        return await log.beginTerm(term, after_tick);
      } catch (error) {
        if (!(error instanceof LogMovedError) || this.stopped) throw error;
        this.options.log_line?.({ cluster: 'term start raced a late tick', node: this.options.node_id, attempt });
      }
    }
  }

  /**
   * A writer whose store is ahead of the log (a society that ran on one machine, now
   * replicated) first appends its own ticks, so that the log holds the whole history.
   */
  private async seedLog(writer: TermWriter): Promise<void> {
    const { engine, store } = this.options;
    const log_last = this.log_last_tick;
    if (log_last >= engine.state.tick) return;
    for (const tick of storedTicks(store, log_last)) await writer.append(tick);
    this.log_last_tick = engine.state.tick;
    this.options.log_line?.({
      cluster: 'seeded the log',
      node: this.options.node_id,
      ticks: engine.state.tick - log_last,
    });
  }

  /**
   * A follower that has not applied anything for a while although the log is ahead (its
   * consumer lived on a NATS node that died, and the client has not noticed yet) is
   * started again from where this node is.
   */
  private async restartStalledFollower(): Promise<void> {
    const now_ms = this.clock.now_ms();
    if (!this.follower || this.lag_ticks === 0 || now_ms - this.last_applied_ms < FOLLOWER_STALL_MS) return;
    this.options.log_line?.({ cluster: 'follower restarted', node: this.options.node_id, lag_ticks: this.lag_ticks });
    const stalled = this.follower;
    this.follower = undefined;
    await stalled.stop();
    this.last_applied_ms = this.clock.now_ms();
    if (!this.stopped && !this.tenure) this.follow();
  }

  private async promote(tenure: LeaseHolder): Promise<void> {
    const { engine, store } = this.options;
    this.promoting = true;
    const began_ms = this.clock.now_ms();
    await this.follower?.stop();
    this.follower = undefined;
    const writer = await this.beginTerm(tenure.term);
    // A node stopping meanwhile (a shutdown) leaves its term begun and unused: the next writer's term fences it.
    if (this.stopped || this.tenure !== tenure) return writer.abandon();
    await this.seedLog(writer);
    this.writer = writer;
    store.lead(writer);
    engine.lead();
    this.promoting = false;
    this.options.log_line?.({
      cluster: 'leading',
      node: this.options.node_id,
      tick: engine.state.tick,
      caught_up_ms: Math.round(this.clock.now_ms() - began_ms),
    });
    await this.options.on_lead().catch((error) => this.promotionFailed(error, this.options.on_failed));
  }

  /**
   * How a promotion that failed stops this node. A newer term met while beginning, seeding or
   * using this one fences it (exit 75; started again, it follows). Otherwise, a failure before
   * it led (a log that does not replay here) is a divergence (65); one of on_lead's own work
   * (founding, recording the payment mode) is a bug (70).
   */
  private promotionFailed(error: unknown, otherwise: (error: unknown) => void = this.options.on_diverged): void {
    if (this.stopped) return;
    if (error instanceof FencedError) this.fence(error.message);
    else otherwise(error);
  }

  private fence(why: string): void {
    if (this.stopped) return;
    this.stopped = true;
    this.stop_timer?.();
    this.tenure = undefined;
    // Whatever the host does next, this node writes nothing more.
    this.options.engine.stopWriting();
    this.options.store.fence();
    this.options.on_fenced(why);
  }
}

/** How long a follower may apply nothing while the log is ahead before it is started again. */
const FOLLOWER_STALL_MS = 5000;

/** How often the lease is renewed by its holder and looked at by the others: every second, or three times a ttl if shorter. */
export function checkEveryMs(ttl_ms: number): number {
  return Math.max(50, Math.min(1000, Math.floor(ttl_ms / 3)));
}
