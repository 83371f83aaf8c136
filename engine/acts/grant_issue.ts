import { z } from 'zod';
import { oneLineText } from '../text.js';
import { defineAct } from '../act.js';
import { refuse } from '../refusals.js';
import { ownValue } from '../keyed.js';

/**
 * Founder only: records a one-time grant by the hash of its token. The token itself
 * is made by the host and handed to the Founder; it is never logged or stored.
 */
export const grantIssue = defineAct({
  name: 'grant_issue',
  summary:
    'Founder only: issues a one-time grant token (kind observer: its holder is taken off the watchers display, as if they had paid).',
  payload: z.strictObject({
    token_sha256: z.string().regex(/^[0-9a-f]{64}$/),
    kind: z.enum(['observer']),
    note: oneLineText(500),
  }),
  signer: 'primary',
  via_act: false,
  gates: { membership: false, pom: false, founder: true },
  apply(ctx, { token_sha256, kind, note }) {
    const grants = ctx.state.payments.grants;
    if (ownValue(grants, token_sha256)) return refuse('CANNOT_PLACE', 'That grant exists already.');
    grants[token_sha256] = { kind, note, issued_at_ms: ctx.at_ms, redeemed_by: null };
    ctx.emit({ event_type: 'grant_issued', actor: ctx.actor, data: { kind, note, token_sha256 } });
    return { ok: true, result: { kind } };
  },
});
