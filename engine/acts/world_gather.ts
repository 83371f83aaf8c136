import { z } from 'zod';
import { defineMemberAct } from '../act.js';
import { refuse } from '../refusals.js';
import { isoAt } from '../time.js';
import { tileIndex } from '../world/geometry.js';
import { tileCoordinateOrNull } from '../world/coordinate_schemas.js';
import { BIOMES, GATHERABLE } from '../world/materials.js';
import { addResource, apLeft, lacksAp, memberOf, outOfBounds, outOfReach, pay } from '../world/rules.js';

export const GatherSchema = z.strictObject({
  x: tileCoordinateOrNull('x', 'the tile you stand on'),
  y: tileCoordinateOrNull('y', 'the tile you stand on'),
});

export const worldGather = defineMemberAct({
  name: 'world_gather',
  summary:
    'Gathers one unit from an undisturbed surface within reach: timber in forest, salvage in ruins, slag in wasteland. ' +
    'Costs gather_ap (1); a gathered tile regrows after gather_regrow_seconds. x and y null: the tile you stand on.',
  payload: GatherSchema,
  apply(ctx, request) {
    const { world, params } = ctx.state;
    const agent = memberOf(ctx);
    const x = request.x ?? agent.x;
    const y = request.y ?? agent.y;
    const beyond = outOfBounds(x, y);
    if (beyond) return beyond;
    const index = tileIndex(x, y);
    const biome = BIOMES[world.terrain.biome[index]!]!;
    const resource = GATHERABLE[biome];
    if (!resource)
      return refuse(
        'NOTHING_TO_GATHER',
        `Nothing grows or lies loose on ${biome}: gather in forest, ruins or wasteland.`,
        { biome },
      );
    if (world.surface[index] !== world.terrain.base_height[index] || world.top_block[index] !== 0) {
      return refuse('NOTHING_TO_GATHER', 'This surface has been dug or built on; nothing is left to gather.', { x, y });
    }
    const last = world.gathered_at_ms.get(index);
    const ready_ms = last === undefined ? ctx.at_ms : last + params.gather_regrow_seconds * 1000;
    if (ready_ms > ctx.at_ms)
      return refuse('NOTHING_TO_GATHER', 'This tile was gathered recently.', { ready_at: isoAt(ready_ms) });
    const far = outOfReach(ctx, agent, x, y, world.surface[index]!);
    if (far) return far;
    const short = lacksAp(ctx, agent, params.gather_ap);
    if (short) return short;

    pay(ctx, agent, params.gather_ap);
    world.gathered_at_ms.set(index, ctx.at_ms);
    addResource(agent, resource, 1);
    ctx.emit({
      event_type: 'resource_gathered',
      actor: agent.agent_id,
      data: { agent_id: agent.agent_id, x, y, resource, amount: 1, ap_spent: params.gather_ap },
    });
    return { ok: true, result: { resource, amount: 1, ap: apLeft(ctx, agent), inventory: { ...agent.inventory } } };
  },
});
