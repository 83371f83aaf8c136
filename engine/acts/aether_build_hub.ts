import { z } from 'zod';
import { defineMemberAct } from '../act.js';
import { refuse } from '../refusals.js';
import { lacksResource, memberOf, takeResource } from '../world/rules.js';

export const aetherBuildHub = defineMemberAct({
  name: 'aether_build_hub',
  summary:
    'Builds the Aether Hub on a relay mast within block_reach, for hub_relic (1 relic) and hub_obsidian (30 obsidian). There is one Hub; under the range rule every message routes to it.',
  payload: z.strictObject({
    relay_id: z
      .int()
      .min(1)
      .max(1_000_000_000)
      .describe(
        'The relay mast to build the Hub on, by its number (1 for the first mast built; world_structures lists them); you stand within block_reach of it.',
      ),
  }),
  apply(ctx, { relay_id }) {
    const { params, aether } = ctx.state;
    const agent = memberOf(ctx);
    const mast = aether.masts[relay_id - 1];
    if (!mast) return refuse('UNKNOWN_RELAY', `There is no relay mast ${relay_id}.`);
    if (aether.hub) return refuse('CANNOT_PLACE', `The Aether Hub stands on mast ${aether.hub.relay_id} already.`);
    const distance = Math.max(Math.abs(mast.x - agent.x), Math.abs(mast.y - agent.y));
    if (distance > params.block_reach)
      return refuse('OUT_OF_REACH', `Stand within ${params.block_reach} tiles of mast ${relay_id}.`, { distance });
    const poor =
      lacksResource(agent, 'relic', params.hub_relic) ?? lacksResource(agent, 'obsidian', params.hub_obsidian);
    if (poor) return poor;

    takeResource(agent, 'relic', params.hub_relic);
    takeResource(agent, 'obsidian', params.hub_obsidian);
    aether.hub = { relay_id, x: mast.x, y: mast.y, builder: agent.agent_id };
    ctx.emit({
      event_type: 'structure_built',
      actor: agent.agent_id,
      data: { agent_id: agent.agent_id, position: { x: mast.x, y: mast.y }, relay_id, structure: 'aether_hub' },
    });
    return { ok: true, result: { relay_id, position: { x: mast.x, y: mast.y } } };
  },
});
