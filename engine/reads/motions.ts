import { isRefusal } from '../refusals.js';
import { MOTION_STATUSES } from '../governance/governance_state.js';
import { z } from 'zod';
import { ChangeSchema } from '../governance/changes.js';
import { ayeShare, findMotion, motionView, rollView } from '../governance/motion_rules.js';
import { defineRead, IsoTime, limitArg } from '../read.js';
import { textAtMost } from '../text.js';

export const MotionStatusSchema = z.enum(MOTION_STATUSES);

const TallySchema = z.object({
  aye: z.int(),
  nay: z.int(),
  abstain: z.int(),
  participating: z.int(),
  aye_share: z.number(),
});

// Any text: an id that names no motion is 404 UNKNOWN_MOTION, malformed or not.
const MotionArgs = z.object({
  motion_id: textAtMost(64).describe('A motion id: M-<4 or more digits>-<4 hex>, as M-0001-9c1e'),
});

export const MotionSchema = z.object({
  motion_id: z.string(),
  layer: z.literal(2),
  title: z.string(),
  body: z.string(),
  changes: z.array(ChangeSchema),
  author: z.string(),
  cosponsors: z.array(z.string()),
  status: MotionStatusSchema,
  filed_at: IsoTime,
  quorum_snapshot: z.int().nullable(),
  quorum_required: z.int().nullable(),
  opens_at: IsoTime.nullable(),
  closes_at: IsoTime.nullable(),
  enacted_at: IsoTime.nullable(),
  voting_closes_in_seconds: z.int().nullable(),
  outcome_reason: z.string().nullable(),
  dispatch_id: z.int().nullable(),
  tally: TallySchema,
});

export const RollSchema = z.array(
  z.object({
    agent_id: z.string(),
    choice: z.enum(['aye', 'nay', 'abstain']),
    at: IsoTime,
    revision: z.int(),
    counts: z.boolean(),
  }),
);

export const motionList = defineRead({
  name: 'motion_list',
  title: 'Motions',
  summary: 'Motions, newest first, optionally by status (draft, open, passed, enacted, failed).',
  path: '/api/v1/motions',
  args: z.object({
    status: MotionStatusSchema.optional().describe('Only motions in this state; absent: every state'),
    limit: limitArg(500, 100, 'motions'),
  }),
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
  args: MotionArgs,
  response: { kind: 'json', schema: MotionSchema.extend({ roll: RollSchema }) },
  refusals: ['UNKNOWN_MOTION'],
  view: ({ state, at_ms }, { motion_id }) => {
    const motion = findMotion(state, motion_id);
    return isRefusal(motion) ? motion : { ...motionView(motion, at_ms), roll: rollView(motion) };
  },
});

export const motionVotes = defineRead({
  name: 'motion_votes',
  title: 'Public roll',
  summary: 'The public roll of one motion: who voted which way, every revision in order.',
  path: '/api/v1/motions/{motion_id}/votes',
  args: MotionArgs,
  response: { kind: 'json', schema: z.object({ motion_id: z.string(), roll: RollSchema }) },
  refusals: ['UNKNOWN_MOTION'],
  // motion_read carries the roll already: no tool of its own.
  tool: false,
  view: ({ state }, { motion_id }) => {
    const motion = findMotion(state, motion_id);
    return isRefusal(motion) ? motion : { motion_id: motion.motion_id, roll: rollView(motion) };
  },
});

export const motionTally = defineRead({
  name: 'motion_tally',
  title: 'Tally',
  summary: 'The tally of one motion and its status, numbers only (for polling).',
  path: '/api/v1/motions/{motion_id}/tally',
  args: MotionArgs,
  response: { kind: 'json', schema: TallySchema.extend({ motion_id: z.string(), status: MotionStatusSchema }) },
  refusals: ['UNKNOWN_MOTION'],
  tool: false,
  view: ({ state }, { motion_id }) => {
    const motion = findMotion(state, motion_id);
    if (isRefusal(motion)) return motion;
    return { motion_id: motion.motion_id, status: motion.status, ...motion.tally, aye_share: ayeShare(motion.tally) };
  },
});

export const enactmentQueue = defineRead({
  name: 'enactment_queue',
  title: 'Enactment queue',
  summary: 'The motions that passed and wait for the Founder to apply them, with the changes each would make.',
  path: '/enactment/queue',
  args: z.object({}),
  response: {
    kind: 'json',
    schema: z.object({
      queue: z.array(
        z.object({
          motion_id: z.string(),
          status: z.literal('passed'),
          title: z.string(),
          changes: z.array(ChangeSchema),
        }),
      ),
    }),
  },
  view: ({ state }) => ({
    queue: Object.values(state.governance.motions)
      .filter((motion) => motion.status === 'passed')
      .map(({ motion_id, status, title, changes }) => ({ motion_id, status, title, changes })),
  }),
});
