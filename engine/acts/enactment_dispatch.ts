import { z } from 'zod';
import { defineAct } from '../act.js';
import { chronicle } from '../governance/governance_state.js';
import { asOneLine } from '../text.js';

export const DispatchSchema = z.strictObject({});

/**
 * Founder only: the daily Dispatch. Append-only and one-way (A3); it lists every
 * disclosure queued since the last one ('Nothing new.' if none) and drains the queue
 * in the same commit as its publication.
 */
export const enactmentDispatch = defineAct({
  name: 'enactment_dispatch',
  summary:
    "Founder only: publishes the Dispatch, listing what was applied, resolved and refused at the Bedrock boundary since the last one ('Nothing new.' when nothing).",
  payload: DispatchSchema,
  signer: 'primary',
  via_act: false,
  rest: { method: 'POST', path: '/enactment/dispatch' },
  gates: { membership: false, pom: false, founder: true },
  apply(ctx) {
    const governance = ctx.state.governance;
    const dispatch_id = governance.dispatches.length + 1;
    const items = governance.disclosures;
    const text = items.length === 0 ? 'Nothing new.' : items.map((item) => `- ${asOneLine(item.text)}`).join('\n');
    governance.dispatches.push({ dispatch_id, at_ms: ctx.at_ms, text, items });
    governance.disclosures = [];
    chronicle(governance, ctx.at_ms, 'dispatch', `Dispatch ${dispatch_id} published`);
    ctx.emit({
      event_type: 'dispatch_published',
      actor: ctx.actor,
      data: { dispatch_id, disclosures: items.length, text },
    });
    return { ok: true, result: { dispatch_id, text, disclosures_drained: items.length } };
  },
});
