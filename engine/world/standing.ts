import type { ApplyContext } from '../act.js';
import type { WorldAgent } from './world_state.js';
import { signalsOf } from '../governance/governance_state.js';

/** Standing is only ever granted by the engine, with its reason on the ledger; it cannot be bought or moved. */
export function awardStanding(
  ctx: ApplyContext,
  agent: WorldAgent,
  points: number,
  reason: string,
  detail: Record<string, unknown> = {},
): void {
  if (points <= 0) return;
  agent.standing += points;
  const signals = signalsOf(ctx.state.governance, agent.agent_id);
  if (reason === 'exploration') signals.exploration += 1;
  else if (reason === 'biome_first_discovery') signals.biome_firsts += 1;
  else if (reason === 'relic_found') signals.relics += 1;
  ctx.emit({
    event_type: 'standing_awarded',
    actor: agent.agent_id,
    data: { agent_id: agent.agent_id, points, reason, standing: agent.standing, ...detail },
  });
}
