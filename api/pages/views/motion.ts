import type { z } from 'zod';
import type { MotionDetail } from '../../../render/pages/motion_page.js';
import { isRefusal, type ReadContext, motionRead, type MotionSchema, type RollSchema } from '../../../engine/index.js';

// The engine's motion reads answer what their response schemas declare.
type MotionWithRoll = z.output<typeof MotionSchema> & { roll: z.output<typeof RollSchema> };

export function motionDetailView(context: ReadContext, { motion_id }: { motion_id: string }): MotionDetail | null {
  const motion = motionRead.view(context, { motion_id });
  return isRefusal(motion) ? null : (motion as MotionWithRoll);
}
