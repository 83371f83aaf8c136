import type { LoggedAction } from '../apply.js';
import type { SocietyState } from '../state.js';
import type { EpochMs } from '../time.js';
import { ownValue } from '../keyed.js';

/** The system actions engine time has made due: every open motion whose window has closed. */
export function dueSystemActions(state: Readonly<SocietyState>, at_ms: EpochMs): LoggedAction[] {
  const governance = state.governance;
  if (!governance) return [];
  return governance.open_motions
    .filter((motion_id) => ownValue(governance.motions, motion_id)!.closes_at_ms! <= at_ms)
    .map((motion_id) => ({ act: 'motion_close', actor: 'system', payload: { motion_id } }));
}
