import type { ApplyContext } from '../act.js';
import { placeAgent } from './agent_places.js';
import { arrive } from './exploration.js';
import type { WorldAgent } from './world_state.js';

/** Places a newly registered member at its spawn point with AP at registration, and looks around. */
export function joinWorld(ctx: ApplyContext, agent_id: string, at: { x: number; y: number }): WorldAgent {
  const { world, params } = ctx.state;
  const agent: WorldAgent = {
    agent_id,
    ordinal: world.agent_order.length,
    x: at.x,
    y: at.y,
    ap: params.ap_at_registration,
    ap_as_of_ms: ctx.at_ms,
    inventory: {},
    standing: 0,
    explore_day: Math.floor(ctx.at_ms / 86_400_000),
    explore_bonus_tiles: 0,
  };
  world.agents.set(agent_id, agent);
  placeAgent(world, agent);
  world.agent_order.push(agent_id);
  // Tiles revealed at the spawn point earn no exploration bonus: nobody chose to go there.
  arrive(ctx, agent, at.x, at.y);
  return agent;
}
