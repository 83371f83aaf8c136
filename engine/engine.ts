import type { ApplyOutcome, ReadAct } from './act.js';
import { applyAction, performRead, replayTick, type LoggedAction, type TickRecord } from './apply.js';
import { foundingPayload } from './genesis.js';
import { dueSystemActions } from './governance/due.js';
import type { ChainedEntry } from './ledger.js';
import { keptAnswers, type AnswerToKeep } from './kept_answer.js';
import type { LogTree } from './log/log_tree.js';
import { openLogTree } from './log/tree_build.js';
import { refuse, type Refusal } from './refusals.js';
import { recoverState } from './recover.js';
import { DivergedLogError, type ReplicatedTick } from './replicated_tick.js';
import { imageOf, type SocietyState, type StateImage } from './state.js';
import type { ConsumedNonce, EngineStore, TickCommit } from './store/types.js';
import type { EpochMs } from './time.js';

export interface Submission extends LoggedAction {
  /** The nonce that authorised it, spent in the tick's commit whatever the outcome. */
  consumed_nonce?: ConsumedNonce;
  /** Keep the answer in the tick's commit, for a retry of the same signed request. */
  keep_answer?: AnswerToKeep;
}

export type SubmitResult = { ok: true; result: Record<string, unknown>; entries: ChainedEntry[] } | Refusal;

export interface EngineOptions {
  /** The host's clock, injected: the engine stamps each tick with it and never reads time itself. */
  clock: () => EpochMs;
  actions_per_tick_max?: number;
  /**
   * Members' submissions waiting at most (default 10,000); past it a member's submission is
   * refused QUEUE_FULL at once and spends nothing. Acts in the system's name always get in.
   */
  queue_depth_max?: number;
  snapshot_every_ticks?: number;
  /** Called when the engine cannot go on (a failed commit); the host should exit. */
  on_fatal?: (error: unknown) => void;
  /** Called when an apply threw: a bug, answered INTERNAL, with the state reloaded. */
  on_fault?: (error: unknown, action: LoggedAction) => void;
  /**
   * For metrics only: a host monotonic clock in ms and a report per committed tick. The
   * engine never reads time itself; what it measures here feeds nothing back into state.
   */
  monotonic_ms?: () => number;
  on_tick?: (report: TickReport) => void;
  /**
   * The entries of each tick, once they are durable and the tick's callers are answered:
   * what the host may publish (the event stream), never earlier. Ticks arrive in order.
   */
  on_committed?: (entries: readonly ChainedEntry[]) => void;
  /** Progress while the ledger's Merkle tree is built for a store written before it existed. */
  on_tree_build?: (leaves: number, of_leaves: number) => void;
  /**
   * false: the engine starts as a follower of another writer's log (Engine.follow) and
   * refuses submissions NOT_LEADER until Engine.lead() makes it the writer. An empty store
   * is then not founded on open: a node of a replicated society follows the log first and
   * founds (Engine.found) only if it comes to lead and the log is empty too.
   */
  writer?: boolean;
}

export interface TickReport {
  actions: number;
  entries: number;
  apply_ms: number;
  commit_ms: number;
  outcomes: { act: string; code: string }[];
}

interface Pending {
  submission: Submission;
  resolve: (result: SubmitResult) => void;
}

/**
 * One queue of actions, applied in order by ticks. A tick applies up to
 * actions_per_tick_max actions against the in-memory state, then hands its log
 * record, ledger entries and spent nonces to the store as one transaction; its
 * callers are answered only when that transaction is durable. Group commit: while
 * one tick's commit is in flight no other tick starts, so everything that arrives
 * meanwhile becomes the next tick, one transaction. Under load that halves the
 * ticks (and their per-commit cost) against starting a tick at every turn, at no
 * cost in latency: the next transaction would have waited for this one anyway. A
 * backlog of a full tick or more does not wait: it applies while the previous
 * commit is in flight, and its commit queues behind.
 */
export class Engine {
  private queue: Pending[] = [];
  private tick_scheduled = false;
  /** Tick commits handed to the store and not yet durable. */
  private commits_in_flight = 0;
  /** A tick was asked for while a commit was in flight; it runs when that commit lands. */
  private tick_wanted = false;
  private reloading = false;
  private ticks_since_snapshot = 0;
  private writing: boolean;
  private readonly actions_per_tick_max: number;
  private readonly queue_depth_max: number;
  private readonly snapshot_every_ticks: number;

  private constructor(
    private readonly store: EngineStore,
    private current: SocietyState,
    private readonly tree: LogTree,
    private readonly options: EngineOptions,
  ) {
    this.actions_per_tick_max = options.actions_per_tick_max ?? 1024;
    this.queue_depth_max = options.queue_depth_max ?? 10_000;
    if (!(this.queue_depth_max >= 1)) throw new Error('queue_depth_max must be at least 1');
    this.snapshot_every_ticks = options.snapshot_every_ticks ?? 5000;
    this.writing = options.writer ?? true;
  }

  /** Loads the latest snapshot and replays the log after it; founds the society if the log is empty. */
  static async open(store: EngineStore, genesis: unknown, options: EngineOptions): Promise<Engine> {
    const state = recoverState(store);
    const engine = new Engine(store, state, await openLogTree(store, options.on_tree_build), options);
    if (engine.writing) await engine.found(genesis);
    return engine;
  }

  /** Founds the society with its genesis settings if nothing has happened yet; otherwise does nothing. */
  async found(genesis: unknown): Promise<void> {
    if (this.current.tick !== 0) return;
    // Parsed here too, so the logged genesis always carries every default.
    const founded = await this.submit({ act: 'society_found', actor: 'system', payload: foundingPayload(genesis) });
    if (!founded.ok) throw new Error(`genesis refused: ${founded.code} ${founded.message}`);
  }

  /**
   * Applies a tick another engine wrote (a replicated log): replayed through the same
   * code as recovery, checked against the head its writer published and by `verify` (the
   * host's check of the entries it made: chain and signatures), then committed like
   * one of its own and published to on_committed. Only for an engine that runs no ticks
   * of its own (a follower); ticks must come in order. A tick that does not replay, or
   * replays to another head, means this store is not that log's: DivergedLogError, and the
   * state is reloaded from the store so that nothing half-applied is served.
   */
  async follow(tick: ReplicatedTick, verify?: (entries: readonly ChainedEntry[]) => Promise<void>): Promise<void> {
    if (this.writing) throw new Error('an engine that runs its own ticks cannot follow another writer');
    const state = this.current;
    const number = tick.record.tick;
    if (number !== state.tick + 1)
      throw new DivergedLogError(number, `the log has tick ${number} next, this store tick ${state.tick + 1}`);
    // The state may be half-changed: what is served again is what the store holds.
    const diverged = (reason: string) => {
      this.current = recoverState(this.store);
      return new DivergedLogError(number, reason);
    };
    let entries: ChainedEntry[];
    try {
      entries = replayTick(state, tick.record);
    } catch (error) {
      throw diverged(`does not replay here: ${(error as Error).message}`);
    }
    const head = state.ledger_head;
    const published = tick.ledger_head;
    if (head.seq !== published.seq || head.hash !== published.hash)
      throw diverged(
        `replays to seq ${head.seq} ${head.hash}, its writer published seq ${published.seq} ${published.hash}`,
      );
    try {
      await verify?.(entries);
    } catch (error) {
      throw diverged((error as Error).message);
    }
    const commit: TickCommit = {
      record: tick.record,
      entries,
      tree_hashes: this.tree.append(entries.map((entry) => entry.json)),
      consumed_nonces: tick.consumed_nonces,
      kept_answers: tick.kept_answers,
    };
    const snapshot = this.snapshotDue(state);
    if (snapshot) commit.snapshot = snapshot;
    await this.store.commitTick(commit);
    if (entries.length > 0) this.options.on_committed?.(entries);
  }

  /** The live state, for reads between ticks. Callers must not mutate it. */
  get state(): Readonly<SocietyState> {
    return this.current;
  }

  /**
   * The ledger's Merkle tree. Its size may include a tick still committing: readers
   * ask for sizes up to the store's durable head only.
   */
  get log_tree(): LogTree {
    return this.tree;
  }

  get queue_depth(): number {
    return this.queue.length;
  }

  /**
   * QUEUE_FULL if a member's submission would be refused for the queue's depth now. The
   * HTTP layer asks before it checks a signature, so a refused request leaves its nonce
   * unspent for the retry; nothing awaits between that question and the submit. The limit
   * is for members only: acts in the system's name (genesis, the payment mode, verified
   * processor webhooks, grant redemptions, backups, drills) are the host's own or already
   * verified, and refusing one would drop a fact the log must hold. Closings that engine
   * time makes due are never queued at all: each tick computes them.
   */
  queueFullRefusal(): Refusal | undefined {
    if (this.queue.length < this.queue_depth_max) return undefined;
    return refuse('QUEUE_FULL', undefined, { retry_after_seconds: 1 });
  }

  /** Whether this engine runs ticks of its own (false: it follows another writer's log). */
  get is_writer(): boolean {
    return this.writing;
  }

  /** A follower becomes the writer: from now on it runs ticks and no longer follows. */
  lead(): void {
    this.writing = true;
  }

  /**
   * The writer lost the right to write (its lease): submissions are refused NOT_LEADER
   * from now on. What is already queued still runs, and its commits are the store's to
   * refuse; the host is expected to stop.
   */
  stopWriting(): void {
    this.writing = false;
  }

  submit(submission: Submission): Promise<SubmitResult> {
    if (!this.writing) return Promise.resolve(refuse('NOT_LEADER', undefined, { retry_after_seconds: 1 }));
    const full = submission.actor === 'system' ? undefined : this.queueFullRefusal();
    if (full) return Promise.resolve(full);
    return new Promise((resolve) => {
      this.queue.push({ submission, resolve });
      this.schedule();
    });
  }

  /**
   * Answers a read act at once from the live state, at the host's present time; reads
   * never wait for the queue.
   */
  read(act: ReadAct, actor: string, payload: unknown): ApplyOutcome {
    return performRead(this.current, act, actor, payload, this.options.clock());
  }

  /** Resolves when every tick so far is durable. */
  async drain(): Promise<void> {
    while (this.queue.length > 0 || this.tick_scheduled || this.tick_wanted || this.reloading)
      await new Promise((r) => setImmediate(r));
    await this.store.flushed();
  }

  private schedule(): void {
    if (this.tick_scheduled || this.reloading) return;
    // Waiting lets the next tick grow; a full tick cannot grow, so it applies now and its commit queues behind.
    if (this.commits_in_flight > 0 && this.queue.length < this.actions_per_tick_max) {
      this.tick_wanted = true;
      return;
    }
    this.tick_wanted = false;
    this.tick_scheduled = true;
    setImmediate(() => {
      this.tick_scheduled = false;
      this.runTick();
      if (this.queue.length > 0) this.schedule();
    });
  }

  /**
   * Runs a tick if engine time has made something due (a motion's voting window
   * closing), even with no request waiting: time, not a request, closes motions. The
   * host calls this on a timer; resolves when that tick is durable.
   */
  async pulse(): Promise<void> {
    if (!this.writing) return;
    if (dueSystemActions(this.current, Math.max(this.options.clock(), this.current.clock_ms)).length === 0) return;
    this.schedule();
    await this.drain();
  }

  private runTick(): void {
    const started_ms = this.options.monotonic_ms?.() ?? 0;
    const batch = this.queue.splice(0, this.actions_per_tick_max);
    const state = this.current;
    const at_ms = Math.max(this.options.clock(), state.clock_ms);
    // What engine time made due goes first, logged like any action, so a replay closes the same motions at the same point.
    const due = dueSystemActions(state, at_ms);
    if (batch.length === 0 && due.length === 0) return;
    const logged: LoggedAction[] = [];
    const entries: ChainedEntry[] = [];
    const answers: SubmitResult[] = [];
    for (const action of due) {
      try {
        const { outcome, entries: produced } = applyAction(state, action, at_ms);
        if (!outcome.ok) throw new Error(`system action ${action.act} refused: ${outcome.code}`);
        logged.push(action);
        entries.push(...produced);
      } catch (error) {
        this.queue.unshift(...batch);
        this.fault(error, [], -1);
        return;
      }
    }
    for (let index = 0; index < batch.length; index++) {
      const { act, actor, payload, proof, pom } = batch[index]!.submission;
      const action: LoggedAction = { act, actor, payload, ...(proof ? { proof } : {}), ...(pom ? { pom } : {}) };
      try {
        const { outcome, entries: produced } = applyAction(state, action, at_ms);
        if (outcome.ok) {
          logged.push(action);
          entries.push(...produced);
          answers.push(outcome.answer_as ?? { ok: true, result: outcome.result, entries: produced });
        } else {
          answers.push(outcome);
        }
      } catch (error) {
        this.fault(error, batch, index);
        return;
      }
    }
    const commit: TickCommit = {
      entries,
      tree_hashes: this.tree.append(entries.map((entry) => entry.json)),
      consumed_nonces: batch.flatMap((pending) =>
        pending.submission.consumed_nonce ? [pending.submission.consumed_nonce] : [],
      ),
    };
    if (batch.some((pending) => pending.submission.keep_answer))
      commit.kept_answers = keptAnswers(
        batch.map((pending) => pending.submission.keep_answer),
        answers,
      );
    if (logged.length > 0) {
      state.tick += 1;
      state.clock_ms = at_ms;
      const record: TickRecord = { tick: state.tick, at_ms, actions: logged };
      commit.record = record;
      const snapshot = this.snapshotDue(state);
      if (snapshot) commit.snapshot = snapshot;
    }
    const applied_ms = this.options.monotonic_ms?.() ?? 0;
    this.commits_in_flight++;
    this.store.commitTick(commit).then(
      () => {
        this.commits_in_flight--;
        if (this.tick_wanted || this.queue.length > 0) this.schedule();
        batch.forEach((pending, index) => pending.resolve(answers[index]!));
        if (entries.length > 0) this.options.on_committed?.(entries);
        if (this.options.on_tick) {
          const committed_ms = this.options.monotonic_ms?.() ?? 0;
          const outcomes = batch.map((pending, index) => ({
            act: pending.submission.act,
            code: answers[index]!.ok ? 'ok' : (answers[index] as Refusal).code,
          }));
          this.options.on_tick({
            actions: batch.length + due.length,
            entries: entries.length,
            apply_ms: applied_ms - started_ms,
            commit_ms: committed_ms - applied_ms,
            outcomes,
          });
        }
      },
      (error) => {
        this.commits_in_flight--;
        batch.forEach((pending) => pending.resolve(refuse('INTERNAL')));
        this.options.on_fatal?.(error);
      },
    );
  }

  /** The state's image when a snapshot is due (every snapshot_every_ticks ticks, own or followed). */
  private snapshotDue(state: SocietyState): StateImage | undefined {
    if (++this.ticks_since_snapshot < this.snapshot_every_ticks) return undefined;
    this.ticks_since_snapshot = 0;
    return imageOf(state);
  }

  /**
   * An apply threw: that is a bug, and the state may be half-changed. The throwing
   * action is answered INTERNAL; the rest of the tick goes back to the front of the
   * queue; the state is rebuilt from the durable store before the next tick runs.
   */
  private fault(error: unknown, batch: Pending[], failed_index: number): void {
    const failed = batch[failed_index];
    this.options.on_fault?.(error, failed?.submission ?? { act: 'system', actor: 'system', payload: null });
    failed?.resolve(refuse('INTERNAL'));
    if (failed) this.queue.unshift(...batch.slice(0, failed_index), ...batch.slice(failed_index + 1));
    this.reloading = true;
    this.store
      .flushed()
      .then(() => {
        this.current = recoverState(this.store);
        this.reloading = false;
        this.schedule();
      })
      .catch((reload_error) => this.options.on_fatal?.(reload_error));
  }
}
