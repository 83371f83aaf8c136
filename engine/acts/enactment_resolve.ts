import { oneLineText, quoteMemberText } from '../text.js';
import { defineAct } from '../act.js';
import { refuse, isRefusal } from '../refusals.js';
import { enactMotion } from '../governance/enact.js';
import { findMotion } from '../governance/motion_rules.js';
import { MotionRefSchema } from './motion_cosponsor.js';
import { ACT_ROUTES } from '../events/signed_routes.js';

export const ResolveSchema = MotionRefSchema.extend({ reason: oneLineText(2000).min(1) });

export const enactmentResolve = defineAct({
  name: 'enactment_resolve',
  summary:
    "Founder only: resolves a draft or open motion by Founder action, at any time: its changes are applied through the same boundary, it becomes enacted with outcome_reason 'resolved by founder action: <reason>', " +
    'and the next Dispatch records it (dispatch_id).',
  payload: ResolveSchema,
  signer: 'primary',
  via_act: false,
  rest: { method: 'POST', path: ACT_ROUTES.enactment_resolve },
  gates: { membership: false, pom: false, founder: true },
  apply(ctx, payload) {
    const motion = findMotion(ctx.state, payload.motion_id);
    if (isRefusal(motion)) return motion;
    if (motion.status !== 'draft' && motion.status !== 'open')
      return refuse(
        'MOTION_CLOSED',
        `${motion.motion_id} is ${motion.status}; only draft and open motions are resolved by Founder action.`,
      );
    const refused = enactMotion(ctx, motion, payload);
    if (refused) return refused;
    const governance = ctx.state.governance;
    const dispatch_id = governance.dispatches.length + 1;
    motion.outcome_reason = `resolved by founder action: ${payload.reason}`;
    motion.dispatch_id = dispatch_id;
    governance.disclosures.push({
      kind: 'motion_resolved',
      text: `Resolved ${motion.motion_id} ${quoteMemberText(motion.title)} by Founder action: ${payload.reason}`,
      at_ms: ctx.at_ms,
    });
    ctx.emit({
      event_type: 'motion_resolved_by_founder',
      actor: ctx.actor,
      data: { dispatch_id, motion: motion.motion_id, reason: payload.reason },
    });
    return {
      ok: true,
      result: { motion_id: motion.motion_id, status: 'enacted', outcome_reason: motion.outcome_reason, dispatch_id },
    };
  },
});
