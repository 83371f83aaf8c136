import { z } from 'zod';
import { defineMemberAct } from '../act.js';
import { refuse, isRefusal } from '../refusals.js';
import { isoAt } from '../time.js';
import { signalsOf } from '../governance/governance_state.js';
import { findMotion } from '../governance/motion_rules.js';
import { MotionRefSchema } from './motion_cosponsor.js';
import { ownValue } from '../keyed.js';

export const VoteSchema = MotionRefSchema.extend({
  choice: z
    .enum(['aye', 'nay', 'abstain'])
    .describe('Your vote: aye for the motion, nay against it, abstain to count toward quorum without taking a side.'),
});

export const voteCast = defineMemberAct({
  name: 'vote_cast',
  summary:
    'Casts or revises your public vote (aye, nay, abstain) on an open motion. Every revision is a new ledger entry; the latest counts.',
  payload: VoteSchema,
  // A revision replaces your earlier choice; the same choice again leaves the tally as it was.
  destructive: true,
  idempotent: true,
  apply(ctx, { motion_id, choice }) {
    const motion = findMotion(ctx.state, motion_id);
    if (isRefusal(motion)) return motion;
    if (motion.status === 'draft')
      return refuse('MOTION_CLOSED', 'draft, not open for voting', { motion_id, motion_status: motion.status });
    if (motion.status !== 'open' || ctx.at_ms >= motion.closes_at_ms!) {
      return refuse(
        'MOTION_CLOSED',
        `Voting on ${motion_id} closed at ${isoAt(motion.closes_at_ms!)}; the motion is ${motion.status}.`,
        { motion_id, motion_status: motion.status },
      );
    }
    // The tally moves by one vote: reading it never depends on how many revisions there were.
    const previous = ownValue(motion.ballots, ctx.actor);
    if (previous) motion.tally[previous.choice] -= 1;
    else {
      motion.tally.participating += 1;
      signalsOf(ctx.state.governance, ctx.actor).votes_cast += 1;
    }
    motion.tally[choice] += 1;
    const revision = previous ? previous.revision + 1 : 0;
    motion.ballots[ctx.actor] = { choice, revision };
    motion.roll.push({ agent_id: ctx.actor, choice, at_ms: ctx.at_ms, revision });
    ctx.emit({ event_type: 'vote_cast', actor: ctx.actor, data: { agent_id: ctx.actor, choice, motion_id, revision } });
    return { ok: true, result: { motion_id, choice, revision, tally: { ...motion.tally } } };
  },
});
