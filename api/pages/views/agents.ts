import type { AgentView, ReputationView } from '../../../render/pages/agent_pages.js';
import { leaderboard, reputationOf, type ReadContext, isoAt } from '../../../engine/index.js';

const leaderboard_shown = 100;

export function reputationView({ state }: ReadContext): ReputationView {
  return { leaderboard: leaderboard(state, leaderboard_shown) };
}

export function agentView({ state }: ReadContext, { agent_id }: { agent_id: string }): AgentView | null {
  const record = state.agents.get(agent_id);
  if (!record) return null;
  const world_agent = state.world.agents.get(record.agent_id);
  const reputation = reputationOf(state, record.agent_id);
  return {
    agent_id: record.agent_id,
    handle: record.handle,
    registered_at: isoAt(record.registered_at_ms),
    position: world_agent ? { x: world_agent.x, y: world_agent.y } : null,
    standing: reputation?.standing ?? 0,
    signals: { ...(reputation?.signals ?? {}) },
  };
}
