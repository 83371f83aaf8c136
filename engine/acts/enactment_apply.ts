import { defineAct } from '../act.js';
import { refuse, isRefusal } from '../refusals.js';
import { enactMotion } from '../governance/enact.js';
import { findMotion } from '../governance/motion_rules.js';
import { MotionRefSchema } from './motion_cosponsor.js';
import { quoteMemberText } from '../text.js';
import { ACT_ROUTES } from '../events/signed_routes.js';

export const enactmentApply = defineAct({
  name: 'enactment_apply',
  summary:
    'Founder only: applies one passed motion, every change in one commit or none. Applying it again changes nothing. Refuses Bedrock.',
  payload: MotionRefSchema,
  signer: 'primary',
  via_act: false,
  rest: { method: 'POST', path: ACT_ROUTES.enactment_apply },
  gates: { membership: false, pom: false, founder: true },
  apply(ctx, payload) {
    const motion = findMotion(ctx.state, payload.motion_id);
    if (isRefusal(motion)) return motion;
    if (motion.status === 'enacted')
      return refuse('ALREADY_ENACTED', `${motion.motion_id} is enacted already; nothing changed.`);
    if (motion.status !== 'passed')
      return refuse('MOTION_NOT_PASSED', `${motion.motion_id} is ${motion.status}; only a passed motion is applied.`);
    const refused = enactMotion(ctx, motion, payload);
    if (refused) return refused;
    ctx.state.governance.disclosures.push({
      kind: 'enactment_applied',
      text: `Applied ${motion.motion_id} ${quoteMemberText(motion.title)}, which passed by vote.`,
      at_ms: ctx.at_ms,
    });
    ctx.emit({
      event_type: 'enactment_applied',
      actor: ctx.actor,
      data: { changes: motion.changes, motion_id: motion.motion_id },
    });
    return {
      ok: true,
      result: { motion_id: motion.motion_id, status: 'enacted', changes_applied: motion.changes.length },
    };
  },
});
