import { z } from 'zod';
import { defineAct } from '../act.js';
import { textAtMost } from '../text.js';

/** Engine only: a consistent copy of the store was taken (by the hourly timer or the operator). */
export const backupTaken = defineAct({
  name: 'backup_taken',
  summary: 'Records a backup of the store (engine only).',
  payload: z.strictObject({
    backup_id: textAtMost(100).min(1),
    ledger_seq: z.int().min(0),
    ledger_hash: z.string().regex(/^[0-9a-f]{64}$/),
  }),
  signer: 'system',
  via_act: false,
  gates: { membership: false, pom: false },
  apply(ctx, backup) {
    ctx.emit({ event_type: 'backup_taken', actor: 'system', data: backup });
    return { ok: true, result: backup };
  },
});
