import { defineAct } from '../act.js';
import { invariant } from '../invariant.js';
import { chronicle } from '../governance/governance_state.js';
import { ayeShare } from '../governance/motion_rules.js';
import { MotionRefSchema } from './motion_cosponsor.js';
import { ownValue } from '../keyed.js';

/** Pass share: aye / (aye + nay) must exceed one half. */
const PASS_SHARE = 0.5;

/**
 * Engine only: logged by the engine when a motion's window has closed (docs/governance.md#motions). Too few voters: failed, QUORUM_NOT_MET; else more than half aye of
 * those for or against: passed and queued for enactment; else failed, REJECTED.
 */
export const motionClose = defineAct({
  name: 'motion_close',
  summary: 'Closes a motion when its voting window ends (engine only).',
  payload: MotionRefSchema,
  signer: 'system',
  via_act: false,
  gates: { membership: false, pom: false },
  apply(ctx, { motion_id }) {
    const governance = ctx.state.governance;
    const motion = ownValue(governance.motions, motion_id);
    invariant(
      motion && motion.status === 'open' && motion.closes_at_ms! <= ctx.at_ms,
      `motion_close of ${motion_id} before its time`,
    );
    const share = ayeShare(motion.tally);
    if (motion.tally.participating < motion.quorum_required!) {
      motion.status = 'failed';
      motion.outcome_reason = 'QUORUM_NOT_MET';
    } else if (share > PASS_SHARE) {
      motion.status = 'passed';
      motion.outcome_reason = 'PASSED';
    } else {
      motion.status = 'failed';
      motion.outcome_reason = 'REJECTED';
    }
    governance.open_motions = governance.open_motions.filter((id) => id !== motion_id);
    chronicle(
      governance,
      ctx.at_ms,
      'motion_closed',
      `${motion_id} closed: ${motion.status} (${motion.outcome_reason})`,
    );
    ctx.emit({
      event_type: 'motion_closed',
      actor: 'system',
      data: {
        motion_id,
        outcome_reason: motion.outcome_reason,
        status: motion.status,
        tally: { ...motion.tally, aye_share: share },
      },
    });
    return { ok: true, result: { motion_id, status: motion.status } };
  },
});
