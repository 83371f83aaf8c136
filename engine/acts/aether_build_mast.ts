import { z } from 'zod';
import { defineMemberAct } from '../act.js';
import { refuse } from '../refusals.js';
import { tileIndex } from '../world/geometry.js';
import { BIOME_WATER } from '../world/materials.js';
import { apLeft, lacksAp, lacksResource, memberOf, pay, takeResource } from '../world/rules.js';

export const aetherBuildMast = defineMemberAct({
  name: 'aether_build_mast',
  summary:
    'Raises a relay mast on the land tile you stand on, for relay_mast_iron (20 iron), relay_mast_silicon (10 silicon) and mast_ap (4). Masts carry the Aether under the range rule.',
  payload: z.strictObject({}),
  apply(ctx) {
    const { state } = ctx;
    const { params, aether } = state;
    const agent = memberOf(ctx);
    if (state.world.terrain.biome[tileIndex(agent.x, agent.y)] === BIOME_WATER)
      return refuse('IMPASSABLE', 'Masts are raised on land.');
    if (aether.masts.some((mast) => mast.x === agent.x && mast.y === agent.y))
      return refuse('CANNOT_PLACE', 'There is a mast on this tile already.');
    const poor =
      lacksResource(agent, 'iron', params.relay_mast_iron) ??
      lacksResource(agent, 'silicon', params.relay_mast_silicon);
    if (poor) return poor;
    const short = lacksAp(ctx, agent, params.mast_ap);
    if (short) return short;

    pay(ctx, agent, params.mast_ap);
    takeResource(agent, 'iron', params.relay_mast_iron);
    takeResource(agent, 'silicon', params.relay_mast_silicon);
    const relay_id = aether.masts.length + 1;
    aether.masts.push({ relay_id, x: agent.x, y: agent.y, builder: agent.agent_id, links: [] });
    ctx.emit({
      event_type: 'structure_built',
      actor: agent.agent_id,
      data: { agent_id: agent.agent_id, position: { x: agent.x, y: agent.y }, relay_id, structure: 'relay_mast' },
    });
    return {
      ok: true,
      result: {
        relay_id,
        position: { x: agent.x, y: agent.y },
        ap: apLeft(ctx, agent),
        inventory: { ...agent.inventory },
      },
    };
  },
});
