import { z } from 'zod';
import { defineAct } from '../act.js';

/** Engine only: a consistent copy of the store was taken (by the hourly timer or the operator). */
export const backupTaken = defineAct({
  name: 'backup_taken',
  summary: 'Records a backup of the store (engine only).',
  payload: z.strictObject({ backup_id: z.string().min(1).max(100), ledger_seq: z.int().min(0), ledger_hash: z.string().regex(/^[0-9a-f]{64}$/) }),
  signer: 'system',
  via_act: false,
  gates: { membership: false, pom: false },
  apply(ctx, backup) {
    ctx.emit({ event_type: 'backup_taken', actor: 'system', data: backup });
    return { ok: true, result: backup };
  },
});

/** Engine only: a restore drill rebuilt the society from the latest backup and the log, and compared it with the live one. */
export const restoreDrill = defineAct({
  name: 'restore_drill',
  summary: 'Records the outcome of a restore drill (engine only).',
  payload: z.strictObject({ outcome: z.enum(['passed', 'failed']), detail: z.string().max(2000), backup_id: z.string().max(100).nullable() }),
  signer: 'system',
  via_act: false,
  gates: { membership: false, pom: false },
  apply(ctx, drill) {
    ctx.emit({ event_type: 'restore_drill', actor: 'system', data: drill });
    return { ok: true, result: drill };
  },
});
