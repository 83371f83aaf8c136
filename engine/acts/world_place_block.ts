import { z } from 'zod';
import { defineMemberAct } from '../act.js';
import { refuse } from '../refusals.js';
import { tileIndex, Z_MAX } from '../world/geometry.js';
import { AIR, BLOCKS, BLOCK_COST_UNITS, WATER } from '../world/materials.js';
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
import { PLACED, materialAt, setCell } from '../world/world_state.js';
import { CellSchema } from './world_dig.js';

export const PlaceSchema = CellSchema.extend({
  block_id: z
    .int()
    .min(1)
    .max(8)
    .describe(
      'The block to place: 1 dirt, 2 stone, 3 iron, 4 silicon, 5 obsidian, 6 slag, 7 salvage, 8 timber; it costs 1 unit of that material from your inventory.',
    ),
});

export const worldPlaceBlock = defineMemberAct({
  name: 'world_place_block',
  summary:
    'Places a block within reach, into air or water resting on something below. Block ids: 1 dirt, 2 stone, 3 iron, 4 silicon, 5 obsidian, 6 slag, 7 salvage, 8 timber; ' +
    'each costs 1 unit of its material and place_ap (1). z null places on top of the column.',
  payload: PlaceSchema,
  apply(ctx, request) {
    const { world, params } = ctx.state;
    const agent = memberOf(ctx);
    const beyond = outOfBounds(request.x, request.y);
    if (beyond) return beyond;
    const { x, y, block_id } = request;
    const z = request.z ?? world.surface[tileIndex(x, y)]! + 1;
    if (z > Z_MAX) return refuse('CANNOT_PLACE', `Blocks go no higher than z ${Z_MAX}.`, { x, y, z });
    const here = materialAt(world, x, y, z);
    if (here !== AIR && here !== WATER) return refuse('CANNOT_PLACE', 'That cell is occupied.', { x, y, z });
    if (z > 0 && materialAt(world, x, y, z - 1) === AIR)
      return refuse('CANNOT_PLACE', 'A block must rest on something: the cell below is air.', { x, y, z });
    const far = outOfReach(ctx, agent, x, y, z);
    if (far) return far;
    const resource = BLOCKS[block_id]!;
    const poor = lacksResource(agent, resource, BLOCK_COST_UNITS);
    if (poor) return poor;
    const short = lacksAp(ctx, agent, params.place_ap);
    if (short) return short;

    pay(ctx, agent, params.place_ap);
    takeResource(agent, resource, BLOCK_COST_UNITS);
    setCell(world, x, y, z, block_id | PLACED);
    ctx.emit({
      event_type: 'block_placed',
      actor: agent.agent_id,
      data: { agent_id: agent.agent_id, x, y, z, block_id, block: resource, ap_spent: params.place_ap },
    });
    return { ok: true, result: { x, y, z, block_id, ap: apLeft(ctx, agent), inventory: { ...agent.inventory } } };
  },
});
