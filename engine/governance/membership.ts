import type { ActDefinition } from '../act.js';
import { refuse, type Refusal } from '../refusals.js';
import type { SocietyState } from '../state.js';
import { ownValue } from '../keyed.js';

/**
 * With payments off (the embedded default) every registered agent is an active member.
 * The Founder's key acts for the operator and is not a member: it neither votes nor
 * walks the world. With payments on, only a payment recorded in the service's mode counts.
 */
export function isActiveMember(state: Readonly<SocietyState>, agent_id: string): boolean {
  if (agent_id === state.founder_agent_id || !state.agents.has(agent_id)) return false;
  const { payments } = state;
  if (payments.mode === 'off') return true;
  // Only a payment recorded in the mode the service runs in counts (test against live does not).
  const record = ownValue(payments.members, agent_id);
  return record !== undefined && record.status === 'active' && record.mode === payments.mode;
}

export function activeMemberCount(state: Readonly<SocietyState>): number {
  if (state.payments.mode === 'off') return state.agents.size - (state.agents.has(state.founder_agent_id) ? 1 : 0);
  let count = 0;
  for (const agent_id of state.agents.keys()) if (isActiveMember(state, agent_id)) count++;
  return count;
}

/** The gates an act declares, checked in one place for writes and reads alike. */
export function gateRefusal(state: Readonly<SocietyState>, act: ActDefinition, actor: string): Refusal | undefined {
  if (act.gates.founder && actor !== state.founder_agent_id) return refuse('FOUNDER_ONLY');
  if (act.gates.membership && !isActiveMember(state, actor)) return refuse('MEMBERSHIP_REQUIRED');
  return undefined;
}
