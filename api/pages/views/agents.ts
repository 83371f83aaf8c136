import type { AgentView, ReputationView } from '../../../render/pages/agent_pages.js';
import { leaderboard, reputationOf, type ReadContext, isoAt } from '../../../engine/index.js';
import { ledgerView } from './ledger.js';

const leaderboard_shown = 100;

/** The newest of an agent's own entries its page tells as sentences; the ledger link has the rest. */
const activity_shown = 10;

export function reputationView({ state }: ReadContext): ReputationView {
  return { leaderboard: leaderboard(state, leaderboard_shown) };
}

export function agentView(context: ReadContext, { agent_id }: { agent_id: string }): AgentView | null {
  const { state } = context;
  const record = state.agents.get(agent_id);
  if (!record) return null;
  const world_agent = state.world.agents.get(record.agent_id);
  const reputation = reputationOf(state, record.agent_id);
  // The explorer's own filtered page (its index, its bound on reading), newest first.
  const activity = ledgerView(context, { actor: record.agent_id }).entries.slice(0, activity_shown);
  const holdings = Object.entries(world_agent?.inventory ?? {})
    .filter(([, amount]) => amount > 0)
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return {
    agent_id: record.agent_id,
    handle: record.handle,
    registered_at: isoAt(record.registered_at_ms),
    role: record.agent_id === state.founder_agent_id ? 'founder' : 'member',
    position: world_agent ? { x: world_agent.x, y: world_agent.y } : null,
    standing: reputation?.standing ?? 0,
    signals: { ...(reputation?.signals ?? {}) },
    holdings,
    activity,
  };
}
