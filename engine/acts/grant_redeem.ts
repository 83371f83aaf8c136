import { z } from 'zod';
import { defineAct } from '../act.js';
import { refuse } from '../refusals.js';
import { ownValue } from '../keyed.js';

/** Engine only: redeems a grant once, for the anonymous visitor who opened its link. */
export const grantRedeem = defineAct({
  name: 'grant_redeem',
  summary: 'Redeems a one-time grant token for a visitor (engine only, from /access/grant/{token}).',
  payload: z.strictObject({
    token_sha256: z.string().regex(/^[0-9a-f]{64}$/),
    visitor_id: z.string().regex(/^v_[0-9a-f]{16}$/),
  }),
  signer: 'system',
  via_act: false,
  gates: { membership: false, pom: false },
  apply(ctx, { token_sha256, visitor_id }) {
    const { payments } = ctx.state;
    const grant = ownValue(payments.grants, token_sha256);
    if (!grant || grant.redeemed_by !== null) return refuse('GRANT_INVALID');
    grant.redeemed_by = visitor_id;
    payments.observers[visitor_id] = { mode: 'grant', paid_cents: 0, at_ms: ctx.at_ms };
    ctx.emit({ event_type: 'grant_redeemed', actor: 'system', data: { kind: grant.kind, token_sha256, visitor_id } });
    return { ok: true, result: { kind: grant.kind, visitor_id } };
  },
});
