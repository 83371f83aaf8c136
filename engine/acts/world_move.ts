import { z } from 'zod';
import { moveAgent } from '../world/agent_places.js';
import { defineMemberAct } from '../act.js';
import { refuse } from '../refusals.js';
import { arrive, payExplorationBonus } from '../world/exploration.js';
import { DIRECTIONS, DIRECTION_NAMES, tileIndex, type Direction } from '../world/geometry.js';
import { BIOMES, BIOME_WATER, MOVE_COST_PARAM } from '../world/materials.js';
import { apLeft, lacksAp, memberOf, outOfBounds, pay } from '../world/rules.js';

export const move_path_steps_max = 16;

export const MoveSchema = z.strictObject({
  path: z
    .array(z.enum(DIRECTION_NAMES as [Direction, ...Direction[]]))
    .min(1)
    .max(move_path_steps_max)
    .describe(
      `The steps to take in order, 1 to ${move_path_steps_max}, each one tile relative to where the step before left you: n is toward y 0, s toward y 2047, w toward x 0, e toward x 2047; ne, se, sw and nw are diagonal.`,
    ),
});

/** A step or a short path, all or nothing: every step is checked and priced before the agent moves at all. */
export const worldMove = defineMemberAct({
  name: 'world_move',
  summary:
    `Moves you along a path of 1 to ${move_path_steps_max} steps (n, ne, e, se, s, sw, w, nw), all or nothing. ` +
    'Each step costs the AP of the biome stepped onto (plains 1, ruins 1, forest 2, wasteland 2, desert 2, mountain 4; a road 1); water is impassable. ' +
    'Moving reveals the tiles around you and may earn exploration standing.',
  payload: MoveSchema,
  apply(ctx, { path }) {
    const { world, params } = ctx.state;
    const agent = memberOf(ctx);
    let x = agent.x;
    let y = agent.y;
    let cost = 0;
    const steps: { x: number; y: number }[] = [];
    for (const [step, direction] of path.entries()) {
      const [dx, dy] = DIRECTIONS[direction];
      x += dx;
      y += dy;
      const beyond = outOfBounds(x, y);
      if (beyond)
        return refuse('OUT_OF_BOUNDS', `Step ${step + 1} (${direction}) leaves the world at (${x}, ${y}).`, {
          step: step + 1,
          x,
          y,
        });
      const index = tileIndex(x, y);
      const biome = world.terrain.biome[index]!;
      if (biome === BIOME_WATER) {
        const bridged = params.bridges_allowed && world.top_block[index] !== 0;
        if (!bridged)
          return refuse('IMPASSABLE', 'water is impassable until Bridges are legislated', { step: step + 1, x, y });
        cost += params.move_ap_road;
      } else {
        cost += world.roads.has(index)
          ? params.move_ap_road
          : params[MOVE_COST_PARAM[BIOMES[biome] as keyof typeof MOVE_COST_PARAM]];
      }
      steps.push({ x, y });
    }
    const short = lacksAp(ctx, agent, cost);
    if (short) return short;

    const from = { x: agent.x, y: agent.y };
    pay(ctx, agent, cost);
    moveAgent(world, agent, x, y);
    ctx.emit({
      event_type: 'agent_moved',
      actor: agent.agent_id,
      data: { agent_id: agent.agent_id, ap_spent: cost, from, path, to: { x, y } },
    });
    let revealed = 0;
    for (const step of steps) revealed += arrive(ctx, agent, step.x, step.y);
    payExplorationBonus(ctx, agent, revealed);
    return {
      ok: true,
      result: { position: { x, y }, ap_spent: cost, ap: apLeft(ctx, agent), tiles_revealed: revealed },
    };
  },
});
