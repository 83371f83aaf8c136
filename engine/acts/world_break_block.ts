import { defineMemberAct } from '../act.js';
import { refuse } from '../refusals.js';
import { tileIndex } from '../world/geometry.js';
import { AIR, BLOCKS, BLOCK_COST_UNITS, WATER } from '../world/materials.js';
import { addResource, apLeft, lacksAp, memberOf, outOfBounds, outOfReach, pay } from '../world/rules.js';
import { naturalMaterial } from '../world/terrain.js';
import { PLACED, materialAt, setCell } from '../world/world_state.js';
import { CellSchema } from './world_dig.js';

export const worldBreakBlock = defineMemberAct({
  name: 'world_break_block',
  summary:
    'Breaks a placed block within reach (z null: the topmost placed block of the column). Costs break_ap (1) and refunds ' +
    'floor(break_refund_percent% of its cost): 0 for a 1-unit block. Terrain is dug, not broken; water is a fluid, not a block.',
  payload: CellSchema,
  // Breaking takes a placed block away.
  destructive: true,
  apply(ctx, request) {
    const { world, params } = ctx.state;
    const agent = memberOf(ctx);
    const beyond = outOfBounds(request.x, request.y);
    if (beyond) return beyond;
    const { x, y } = request;
    const column = world.cells.get(tileIndex(x, y));
    let z = request.z;
    if (z === null) {
      for (const [cell_z, value] of column ?? []) if ((value & PLACED) !== 0 && (z === null || cell_z > z)) z = cell_z;
      if (z === null) return refuse('NOTHING_THERE', 'There is no placed block in that column.', { x, y });
    }
    const value = column?.get(z);
    if (value === undefined || (value & PLACED) === 0) {
      const what = materialAt(world, x, y, z) === WATER ? 'water is a fluid, not a block' : 'no placed block there';
      return refuse('NOTHING_THERE', `Nothing to break at (${x}, ${y}, z ${z}): ${what}.`, { x, y, z });
    }
    const far = outOfReach(ctx, agent, x, y, z);
    if (far) return far;
    const short = lacksAp(ctx, agent, params.break_ap);
    if (short) return short;

    const block_id = value & ~PLACED;
    const resource = BLOCKS[block_id]!;
    const refund = Math.floor((BLOCK_COST_UNITS * params.break_refund_percent) / 100);
    pay(ctx, agent, params.break_ap);
    // The cell goes back to what a block can be placed into: water where the terrain has water, else air.
    setCell(world, x, y, z, naturalMaterial(world.terrain, x, y, z) === WATER ? WATER : AIR);
    if (refund > 0) addResource(agent, resource, refund);
    ctx.emit({
      event_type: 'block_broken',
      actor: agent.agent_id,
      data: { agent_id: agent.agent_id, x, y, z, block_id, refund, ap_spent: params.break_ap },
    });
    return {
      ok: true,
      result: { x, y, z, block_id, refund, ap: apLeft(ctx, agent), inventory: { ...agent.inventory } },
    };
  },
});
