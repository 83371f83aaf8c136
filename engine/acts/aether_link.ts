import { z } from 'zod';
import { defineMemberAct } from '../act.js';
import { refuse } from '../refusals.js';
import { lacksResource, memberOf, takeResource } from '../world/rules.js';

const relay = (end: string) =>
  z
    .int()
    .min(1)
    .max(1_000_000_000)
    .describe(`The ${end} relay mast, by its number (1 for the first mast built; world_structures lists them).`);

export const aetherLink = defineMemberAct({
  name: 'aether_link',
  summary:
    'Links two relay masts, standing within block_reach of the first. Costs relay_link_silicon_per_tile (5) silicon per tile of span; a span over relay_span_max_tiles (30) is refused without spending anything.',
  payload: z.strictObject({
    from_relay_id: relay('first: you stand within block_reach of it'),
    to_relay_id: relay('second'),
  }),
  apply(ctx, { from_relay_id, to_relay_id }) {
    const { params, aether } = ctx.state;
    const agent = memberOf(ctx);
    const from = aether.masts[from_relay_id - 1];
    const to = aether.masts[to_relay_id - 1];
    if (!from || !to) return refuse('UNKNOWN_RELAY', `There is no relay mast ${from ? to_relay_id : from_relay_id}.`);
    if (from === to) return refuse('CANNOT_PLACE', 'A mast cannot link to itself.');
    if (from.links.includes(to_relay_id)) return refuse('CANNOT_PLACE', 'Those masts are linked already.');
    const span = Math.max(Math.abs(from.x - to.x), Math.abs(from.y - to.y));
    if (span > params.relay_span_max_tiles)
      return refuse('SPAN_TOO_LONG', `That link would span ${span} tiles; at most ${params.relay_span_max_tiles}.`, {
        span,
      });
    const distance = Math.max(Math.abs(from.x - agent.x), Math.abs(from.y - agent.y));
    if (distance > params.block_reach)
      return refuse('OUT_OF_REACH', `Stand within ${params.block_reach} tiles of mast ${from_relay_id} to link it.`, {
        distance,
      });
    const silicon = span * params.relay_link_silicon_per_tile;
    const poor = lacksResource(agent, 'silicon', silicon);
    if (poor) return poor;

    takeResource(agent, 'silicon', silicon);
    from.links.push(to_relay_id);
    to.links.push(from_relay_id);
    ctx.emit({
      event_type: 'structure_built',
      actor: agent.agent_id,
      data: {
        agent_id: agent.agent_id,
        from_relay_id,
        silicon_spent: silicon,
        span,
        structure: 'relay_link',
        to_relay_id,
      },
    });
    return {
      ok: true,
      result: { from_relay_id, to_relay_id, span, silicon_spent: silicon, inventory: { ...agent.inventory } },
    };
  },
});
