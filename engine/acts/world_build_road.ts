import { z } from 'zod';
import { defineMemberAct } from '../act.js';
import { refuse } from '../refusals.js';
import { tileIndex } from '../world/geometry.js';
import { tileCoordinate } from '../world/coordinate_schemas.js';
import { BIOME_WATER } from '../world/materials.js';
import {
  apLeft,
  lacksAp,
  lacksResource,
  memberOf,
  outOfBounds,
  outOfReach,
  pay,
  takeResource,
} from '../world/rules.js';

export const RoadSchema = z.strictObject({
  x: tileCoordinate('x'),
  y: tileCoordinate('y'),
});

export const worldBuildRoad = defineMemberAct({
  name: 'world_build_road',
  summary:
    'Lays a road on a land tile within reach, for road_ap (4) and road_slag (6 slag). Stepping onto a road costs move_ap_road (1) whatever the biome. ' +
    'Roads are not laid on water: place blocks there to build a causeway.',
  payload: RoadSchema,
  apply(ctx, { x, y }) {
    const { world, params } = ctx.state;
    const agent = memberOf(ctx);
    const beyond = outOfBounds(x, y);
    if (beyond) return beyond;
    const index = tileIndex(x, y);
    if (world.terrain.biome[index] === BIOME_WATER)
      return refuse('IMPASSABLE', 'Roads cannot be laid on water; place blocks to build a causeway.', { x, y });
    if (world.roads.has(index)) return refuse('CANNOT_PLACE', 'There is a road here already.', { x, y });
    const far = outOfReach(ctx, agent, x, y, world.surface[index]!);
    if (far) return far;
    const poor = lacksResource(agent, 'slag', params.road_slag);
    if (poor) return poor;
    const short = lacksAp(ctx, agent, params.road_ap);
    if (short) return short;

    pay(ctx, agent, params.road_ap);
    takeResource(agent, 'slag', params.road_slag);
    world.roads.add(index);
    ctx.emit({
      event_type: 'structure_built',
      actor: agent.agent_id,
      data: {
        agent_id: agent.agent_id,
        structure: 'road',
        position: { x, y },
        ap_spent: params.road_ap,
        slag_spent: params.road_slag,
      },
    });
    return {
      ok: true,
      result: { structure: 'road', position: { x, y }, ap: apLeft(ctx, agent), inventory: { ...agent.inventory } },
    };
  },
});
