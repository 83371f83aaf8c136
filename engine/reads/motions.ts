import { z } from 'zod';
import { ChangeSchema } from '../governance/changes.js';
import { findMotion, isRefusal, motionView, rollView } from '../governance/motion_rules.js';
import { defineRead } from '../read.js';

/** The states of a motion (PROTOCOL section 6), in the order a motion moves through them. */
export const MotionStatusSchema = z.enum(['draft', 'open', 'passed', 'enacted', 'failed']);

const TallySchema = z.object({ aye: z.int(), nay: z.int(), abstain: z.int(), participating: z.int(), aye_share: z.number() });

export const MotionSchema = z.object({
  motion_id: z.string(),
  layer: z.literal(2),
  title: z.string(),
  body: z.string(),
  changes: z.array(ChangeSchema),
  author: z.string(),
  cosponsors: z.array(z.string()),
  status: MotionStatusSchema,
  filed_at: z.iso.datetime(),
  quorum_snapshot: z.int().nullable(),
  quorum_required: z.int().nullable(),
  opens_at: z.iso.datetime().nullable(),
  closes_at: z.iso.datetime().nullable(),
  enacted_at: z.iso.datetime().nullable(),
  voting_closes_in_seconds: z.int().nullable(),
  outcome_reason: z.string().nullable(),
  dispatch_id: z.int().nullable(),
  tally: TallySchema,
});

export const RollSchema = z.array(
  z.object({ agent_id: z.string(), choice: z.enum(['aye', 'nay', 'abstain']), at: z.iso.datetime(), revision: z.int(), counts: z.boolean() }),
);

export const motionList = defineRead({
  name: 'motion_list',
  title: 'Motions',
  summary: 'Motions, newest first, optionally by status (draft, open, passed, enacted, failed).',
  path: '/api/v1/motions',
  args: z.object({ status: MotionStatusSchema.optional(), limit: z.int().min(1).max(500).default(100) }),
  response: { kind: 'json', schema: z.object({ motions: z.array(MotionSchema) }) },
  view: ({ state, at_ms }, { status, limit }) => ({
    motions: Object.values(state.governance.motions)
      .filter((motion) => !status || motion.status === status)
      .reverse()
      .slice(0, limit)
      .map((motion) => motionView(motion, at_ms)),
  }),
});

export const motionRead = defineRead({
  name: 'motion_read',
  title: 'One motion',
  summary: 'One motion with its tally and its public roll of votes.',
  path: '/api/v1/motions/{motion_id}',
  // Any text: an id that names no motion is 404 UNKNOWN_MOTION, malformed or not.
  args: z.object({ motion_id: z.string().max(64).describe('A motion id: M-<4 or more digits>-<4 hex>, as M-0001-9c1e') }),
  response: { kind: 'json', schema: MotionSchema.extend({ roll: RollSchema }) },
  refusals: ['UNKNOWN_MOTION'],
  view: ({ state, at_ms }, { motion_id }) => {
    const motion = findMotion(state, motion_id);
    return isRefusal(motion) ? motion : { ...motionView(motion, at_ms), roll: rollView(motion) };
  },
});
