import { z } from 'zod';
import { defineAct } from '../act.js';
import { textAtMost } from '../text.js';

/** Engine only: a restore drill rebuilt the society from the latest backup and the log, and compared it with the live one. */
export const restoreDrill = defineAct({
  name: 'restore_drill',
  summary: 'Records the outcome of a restore drill (engine only).',
  payload: z.strictObject({
    outcome: z.enum(['passed', 'failed']),
    detail: textAtMost(2000),
    backup_id: textAtMost(100).nullable(),
  }),
  signer: 'system',
  via_act: false,
  gates: { membership: false, pom: false },
  apply(ctx, drill) {
    ctx.emit({ event_type: 'restore_drill', actor: 'system', data: drill });
    return { ok: true, result: drill };
  },
});
