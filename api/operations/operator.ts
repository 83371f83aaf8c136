import type { Routes } from '../routes.js';
import type { Engine } from '../../engine/engine.js';
import type { LmdbStore } from '../../engine/store/lmdb_store.js';
import type { Authenticator } from '../authenticate.js';
import { RefusalError } from '../refusal_error.js';
import { takeBackup } from './backups.js';
import { restoreDrill } from './drill.js';

export interface OperationsConfig {
  data_dir: string;
  backup_every_seconds: number;
  backups_kept: number;
}

/**
 * Backups and restore drills, each recorded on the ledger: on a timer (a backup, then
 * a drill from it, every backup_every_seconds) and on demand by the Founder.
 */
export class Operations {
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<unknown> = Promise.resolve();

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
      void this.backup().then(() => this.drill());
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
      const outcome = await this.engine.submit({ act: 'backup_taken', actor: 'system', payload: { backup_id: backup.backup_id, ledger_seq: backup.ledger_seq, ledger_hash: backup.ledger_hash } });
      this.log({ event: 'backup_taken', backup_id: backup.backup_id, ledger_seq: backup.ledger_seq });
      if (!outcome.ok) throw new Error(`backup_taken refused: ${outcome.code}`);
      return { backup_id: backup.backup_id, ledger_seq: backup.ledger_seq, ledger_hash: backup.ledger_hash, ...(outcome.entries[0] ? { recorded_at_seq: outcome.entries[0].seq } : {}) };
    });
  }

  drill() {
    return this.serial(async () => {
      await this.engine.drain();
      const result = await restoreDrill(this.store, this.engine.state, this.config.data_dir);
      const outcome = await this.engine.submit({ act: 'restore_drill', actor: 'system', payload: result });
      this.log({ event: 'restore_drill', outcome: result.outcome, detail: result.detail });
      if (!outcome.ok) throw new Error(`restore_drill refused: ${outcome.code}`);
      return { ...result, recorded_at_seq: outcome.entries[0]!.seq };
    });
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}

/** POST /operator/backup and /operator/restore-drill: signed by the Founder key, no body. */
export function mountOperatorRoutes(router: Routes, { operations, authenticator, engine }: { operations: Operations; authenticator: Authenticator; engine: Engine }): void {
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
