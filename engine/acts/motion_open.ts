import { defineMemberAct } from '../act.js';
import { refuse, isRefusal } from '../refusals.js';
import { isoAt } from '../time.js';
import { chronicle } from '../governance/governance_state.js';
import { electorateCount } from '../governance/electorate.js';
import { findMotion } from '../governance/motion_rules.js';
import { MotionRefSchema } from './motion_cosponsor.js';

export const motionOpen = defineMemberAct({
  name: 'motion_open',
  summary:
    'Opens your draft for voting for voting_window_seconds (48 h by default). The electorate (active members whose first member act came ' +
    'before this opening) and the quorum, max(3, ceil(rate x electorate)), are frozen on the motion.',
  payload: MotionRefSchema,
  // Opening an open motion is refused (MOTION_NOT_DRAFT): retrying is safe.
  idempotent: true,
  apply(ctx, { motion_id }) {
    const { state, at_ms } = ctx;
    const motion = findMotion(state, motion_id);
    if (isRefusal(motion)) return motion;
    if (motion.author !== ctx.actor) return refuse('NOT_AUTHOR', 'Only the author may open a motion.');
    if (motion.status !== 'draft') return refuse('MOTION_NOT_DRAFT', `${motion_id} is ${motion.status}.`);
    const { params } = state;
    const rate_percent = params.genesis_period ? params.genesis_quorum_rate_percent : params.quorum_rate_percent;
    const snapshot = electorateCount(state, at_ms);
    motion.quorum_snapshot = snapshot;
    motion.quorum_required = Math.max(params.quorum_floor, Math.ceil((rate_percent * snapshot) / 100));
    motion.status = 'open';
    motion.opens_at_ms = at_ms;
    motion.closes_at_ms = at_ms + params.voting_window_seconds * 1000;
    state.governance.open_motions.push(motion_id);
    chronicle(
      state.governance,
      at_ms,
      'motion_opened',
      `${motion_id} opened for voting until ${isoAt(motion.closes_at_ms)}`,
    );
    ctx.emit({
      event_type: 'motion_opened',
      actor: ctx.actor,
      data: {
        closes_at: isoAt(motion.closes_at_ms),
        motion_id,
        opens_at: isoAt(at_ms),
        quorum_required: motion.quorum_required,
        quorum_snapshot: snapshot,
      },
    });
    return {
      ok: true,
      result: {
        motion_id,
        status: 'open',
        quorum_snapshot: snapshot,
        quorum_required: motion.quorum_required,
        closes_at: isoAt(motion.closes_at_ms),
      },
    };
  },
});
