import type { z } from 'zod';
import type { MotionDetail, MotionFragment } from '../../../render/pages/motion_page.js';
import { nameOf } from './names.js';
import { isRefusal, type ReadContext, motionRead, type MotionSchema, type RollSchema } from '../../../engine/index.js';

// The engine's motion reads answer what their response schemas declare.
type MotionWithRoll = z.output<typeof MotionSchema> & { roll: z.output<typeof RollSchema> };

/** A motion, whole or only the part its page's `fragment` query names. */
export function motionDetailView(
  context: ReadContext,
  { motion_id, fragment }: { motion_id: string; fragment?: MotionFragment },
): MotionDetail | null {
  const motion = motionRead.view(context, { motion_id });
  if (isRefusal(motion)) return null;
  const detail = motion as MotionWithRoll;
  const names: Record<string, string | null> = {};
  for (const agent_id of [detail.author, ...detail.cosponsors, ...detail.roll.map((vote) => vote.agent_id)])
    names[agent_id] = nameOf(context.state, agent_id).handle;
  return { ...detail, names, fragment: fragment ?? null };
}
