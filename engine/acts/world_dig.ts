import { z } from 'zod';
import { defineMemberAct } from '../act.js';
import { refuse } from '../refusals.js';
import { tileIndex } from '../world/geometry.js';
import { cellHeightOrNull, tileCoordinate } from '../world/coordinate_schemas.js';
import { AIR, RELIC, WATER, materialName } from '../world/materials.js';
import { addResource, apLeft, lacksAp, memberOf, outOfBounds, outOfReach, pay } from '../world/rules.js';
import { awardStanding } from '../world/standing.js';
import { isPlacedBlock, materialAt, setCell } from '../world/world_state.js';

export const CellSchema = z.strictObject({
  x: tileCoordinate('x'),
  y: tileCoordinate('y'),
  z: cellHeightOrNull(),
});

export const worldDig = defineMemberAct({
  name: 'world_dig',
  summary:
    'Digs one cell within your reach (block_reach; depth counts like distance) and takes its material: dirt, stone, iron, silicon, obsidian, slag, salvage, or a relic. ' +
    'z null digs the top of the column. Costs dig_ap (1). Water and air have nothing to dig; placed blocks are broken, not dug.',
  payload: CellSchema,
  // Digging takes the cell's material away.
  destructive: true,
  apply(ctx, request) {
    const { world, params } = ctx.state;
    const agent = memberOf(ctx);
    const beyond = outOfBounds(request.x, request.y);
    if (beyond) return beyond;
    const { x, y } = request;
    const z = request.z ?? world.surface[tileIndex(x, y)]!;
    const material = materialAt(world, x, y, z);
    if (material === WATER)
      return refuse('NOTHING_TO_DIG', 'That cell is water, a fluid: there is nothing to dig.', { x, y, z });
    if (material === AIR) return refuse('NOTHING_TO_DIG', 'That cell is air: there is nothing to dig.', { x, y, z });
    if (isPlacedBlock(world, x, y, z))
      return refuse('NOTHING_TO_DIG', 'That cell is a placed block: break it with world_break_block.', { x, y, z });
    const far = outOfReach(ctx, agent, x, y, z);
    if (far) return far;
    const short = lacksAp(ctx, agent, params.dig_ap);
    if (short) return short;

    pay(ctx, agent, params.dig_ap);
    setCell(world, x, y, z, AIR);
    const resource = materialName(material);
    addResource(agent, resource, 1);
    ctx.emit({
      event_type: 'terrain_dug',
      actor: agent.agent_id,
      data: { agent_id: agent.agent_id, x, y, z, yield: resource, ap_spent: params.dig_ap },
    });
    if (material === RELIC) {
      ctx.emit({
        event_type: 'relic_found',
        actor: agent.agent_id,
        data: { agent_id: agent.agent_id, site: { x, y, z } },
      });
      awardStanding(ctx, agent, params.relic_standing, 'relic_found', { site: { x, y, z } });
    }
    return {
      ok: true,
      result: { yield: resource, x, y, z, ap: apLeft(ctx, agent), inventory: { ...agent.inventory } },
    };
  },
});
