import { NO_SIGNALS } from '../engine/governance/governance_state.js';
import type { SocietyState } from '../engine/state.js';
import { ownValue } from '../engine/keyed.js';

/** A member's standing with its per-signal breakdown. Standing is only ever granted by the engine's rules. */
export function reputationOf(state: Readonly<SocietyState>, agent_id: string) {
  const agent = state.world.agents.get(agent_id);
  if (!agent) return undefined;
  const signals = { ...(ownValue(state.governance.signals, agent_id) ?? NO_SIGNALS) };
  return { agent_id, handle: state.agents.get(agent_id)?.handle ?? null, standing: agent.standing, signals };
}

export function leaderboard(state: Readonly<SocietyState>, limit: number) {
  return [...state.world.agents.values()]
    .sort((a, b) => b.standing - a.standing || (a.agent_id < b.agent_id ? -1 : 1))
    .slice(0, limit)
    .map((agent, index) => ({ rank: index + 1, ...reputationOf(state, agent.agent_id)! }));
}
