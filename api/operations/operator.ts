import { setImmediate as nextTurn } from 'node:timers/promises';
import type { Routes } from '../routes.js';
import { type Engine, type LmdbStore, imageOf, takeBackup } from '../../engine/index.js';
import type { Authenticator } from '../authenticate.js';
import { RefusalError } from '../refusal_error.js';
import { drillInChild, type DrillJob } from './drill_process.js';

export interface OperationsConfig {
  data_dir: string;
  backup_every_seconds: number;
  backups_kept: number;
}

/** The ledger's restore_drill entry holds at most this much detail. */
const DETAIL_CHARS_MAX = 2000;

/**
 * Backups and restore drills, each recorded on the ledger: on a timer (a backup, then
 * a drill from it, every backup_every_seconds) and on demand by the Founder. The
 * drill runs in its own process; the server keeps serving meanwhile.
 */
export class Operations {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();
  private readonly stopping = new AbortController();

  constructor(
    private readonly engine: Engine,
    private readonly store: LmdbStore,
    private readonly config: OperationsConfig,
    private readonly clock: () => number,
    private readonly log: (line: Record<string, unknown>) => void,
  ) {}

  start(): void {
    if (this.config.backup_every_seconds <= 0) return;
    this.timer = setInterval(() => {
      this.backup()
        .then(() => this.drill())
        .catch((error: unknown) =>
          this.log({ event: 'operations_failed', error: error instanceof Error ? error.message : String(error) }),
        );
    }, this.config.backup_every_seconds * 1000);
    this.timer.unref();
  }

  /** One operation at a time: a drill never restores a backup still being written. */
  private serial<T>(work: () => Promise<T>): Promise<T> {
    const next = this.running.then(work, work);
    this.running = next.catch(() => undefined);
    return next;
  }

  backup() {
    return this.serial(async () => {
      const backup = await takeBackup(this.store, this.config.data_dir, this.clock(), this.config.backups_kept);
      const { ledger_seq, ledger_hash } = backup.manifest;
      for (const name of backup.leftovers_removed) this.log({ event: 'backup_leftover_removed', name });
      for (const skipped of backup.skipped) this.log({ event: 'backup_skipped', ...skipped });
      const outcome = await this.engine.submit({
        act: 'backup_taken',
        actor: 'system',
        payload: { backup_id: backup.backup_id, ledger_seq, ledger_hash },
      });
      this.log({
        event: 'backup_taken',
        backup_id: backup.backup_id,
        ledger_seq,
        data_bytes: backup.manifest.data_bytes,
      });
      if (!outcome.ok) throw new Error(`backup_taken refused: ${outcome.code}`);
      return {
        backup_id: backup.backup_id,
        ledger_seq,
        ledger_hash,
        manifest: backup.manifest,
        leftovers_removed: backup.leftovers_removed,
        skipped: backup.skipped,
        ...(outcome.entries[0] ? { recorded_at_seq: outcome.entries[0].seq } : {}),
      };
    });
  }

  drill() {
    return this.serial(async () => {
      const result = await drillInChild(() => this.liveForDrill(), { log: this.log, signal: this.stopping.signal });
      for (const skipped of result.skipped) this.log({ event: 'backup_skipped', ...skipped });
      this.log({
        event: 'restore_drill',
        outcome: result.outcome,
        detail: result.detail,
        ...(result.first_bad_seq !== undefined ? { first_bad_seq: result.first_bad_seq } : {}),
      });
      if (this.stopping.signal.aborted) return result;
      const payload = {
        outcome: result.outcome,
        detail: result.detail.slice(0, DETAIL_CHARS_MAX),
        backup_id: result.backup_id,
      };
      const outcome = await this.engine.submit({ act: 'restore_drill', actor: 'system', payload });
      if (!outcome.ok) throw new Error(`restore_drill refused: ${outcome.code}`);
      return { ...result, recorded_at_seq: outcome.entries[0]!.seq };
    });
  }

  /** A copy of the state between ticks; the flush makes that tick's log record readable by the drill process. */
  private async liveForDrill(): Promise<DrillJob> {
    await this.engine.drain();
    const image = imageOf(this.engine.state);
    // imageOf shares params with the state, and an enactment changes them in place.
    const live = { ...image, params: { ...image.params } };
    // A copy as large as a snapshot, taken in one turn like the engine's own snapshots; the flush waits a turn at least.
    await nextTurn();
    await this.store.flushed();
    return { live_store_path: this.store.path, data_dir: this.config.data_dir, live };
  }

  /** Stops the timer and kills a drill in progress (its result is not recorded). */
  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.stopping.abort();
  }
}

/** POST /operator/backup and /operator/restore-drill: signed by the Founder key, no body. */
export function mountOperatorRoutes(
  router: Routes,
  { operations, authenticator, engine }: { operations: Operations; authenticator: Authenticator; engine: Engine },
): void {
  const founderOnly = (ctx: Parameters<Authenticator['authenticate']>[0]) => {
    const { actor } = authenticator.authenticate(ctx, '', 'primary');
    if (actor !== engine.state.founder_agent_id) throw RefusalError.of('FOUNDER_ONLY');
  };
  router.post('/operator/backup', async (ctx) => {
    founderOnly(ctx);
    ctx.body = await operations.backup();
  });
  router.post('/operator/restore-drill', async (ctx) => {
    founderOnly(ctx);
    ctx.body = await operations.drill();
  });
}
