import { z } from 'zod';
import { defineMemberAct } from '../act.js';
import { refuse, isRefusal } from '../refusals.js';
import { findMotion } from '../governance/motion_rules.js';

export const MotionRefSchema = z.strictObject({
  motion_id: z
    .string()
    .regex(/^M-\d{4,}-[0-9a-f]{4}$/, 'must be a motion id, M-<4 digits>-<4 hex>')
    .describe('The motion, by its id: M-<4 or more digits>-<4 hex>, as M-0001-9c1e (motion_list lists them).'),
});

export const motionCosponsor = defineMemberAct({
  name: 'motion_cosponsor',
  summary: 'Adds you as a cosponsor of a draft or open motion (not your own).',
  payload: MotionRefSchema,
  // Cosponsoring twice is refused (ALREADY_COSPONSORED): retrying is safe.
  idempotent: true,
  apply(ctx, { motion_id }) {
    const motion = findMotion(ctx.state, motion_id);
    if (isRefusal(motion)) return motion;
    if (motion.status !== 'draft' && motion.status !== 'open')
      return refuse('MOTION_CLOSED', `${motion_id} is ${motion.status}; only draft and open motions take cosponsors.`);
    if (motion.author === ctx.actor || motion.cosponsors.includes(ctx.actor)) return refuse('ALREADY_COSPONSORED');
    motion.cosponsors.push(ctx.actor);
    ctx.emit({ event_type: 'motion_cosponsored', actor: ctx.actor, data: { agent_id: ctx.actor, motion_id } });
    return { ok: true, result: { motion_id, cosponsors: [...motion.cosponsors] } };
  },
});
