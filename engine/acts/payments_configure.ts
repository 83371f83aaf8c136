import { z } from 'zod';
import { defineAct } from '../act.js';

/** Engine only: the host records the payment mode it runs in, so membership is decided from the log alone. */
export const paymentsConfigure = defineAct({
  name: 'payments_configure',
  summary: 'Records the payment mode the service runs in: off, test or live (engine only).',
  payload: z.strictObject({ mode: z.enum(['off', 'test', 'live']) }),
  signer: 'system',
  via_act: false,
  gates: { membership: false, pom: false },
  apply(ctx, { mode }) {
    const previous = ctx.state.payments.mode;
    ctx.state.payments.mode = mode;
    ctx.emit({ event_type: 'payments_configured', actor: 'system', data: { mode, previous } });
    return { ok: true, result: { mode } };
  },
});
