import type { ApplyContext, ApplyOutcome } from '../act.js';
import { isoAt } from '../time.js';
import { applyChanges, checkChanges } from './changes.js';
import { chronicle, signalsOf, type Motion } from './governance_state.js';
import { bedrockRefusal } from './motion_rules.js';

/**
 * The enactment boundary, shared by apply and resolve: it validates for itself
 * (Bedrock again, then every change against the state now), then applies all the
 * changes or none. It returns a refusal, or undefined once the motion is enacted.
 */
export function enactMotion(ctx: ApplyContext, motion: Motion, payload: unknown): ApplyOutcome | undefined {
  const bedrock = bedrockRefusal(ctx, motion.changes, 'apply', payload);
  if (bedrock) return bedrock;
  const invalid = checkChanges(ctx.state, motion.changes);
  if (invalid) return invalid;
  const governance = ctx.state.governance;
  applyChanges(ctx.state, motion.changes, motion.motion_id, ctx.at_ms);
  motion.status = 'enacted';
  motion.enacted_at_ms = ctx.at_ms;
  governance.open_motions = governance.open_motions.filter((id) => id !== motion.motion_id);
  signalsOf(governance, motion.author).motions_passed += 1;
  chronicle(governance, ctx.at_ms, 'motion_enacted', `${motion.motion_id} enacted at ${isoAt(ctx.at_ms)}`);
  return undefined;
}
