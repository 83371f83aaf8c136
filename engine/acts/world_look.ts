import { z } from 'zod';
import { agentsWithin } from '../world/agent_places.js';
import { defineReadAct } from '../act.js';
import { isoAt } from '../time.js';
import { apAt, nextApAtMs } from '../world/ap.js';
import { WORLD_SIZE, tileIndex } from '../world/geometry.js';
import { BIOMES } from '../world/materials.js';
import { memberOf, standingZ } from '../world/rules.js';
import { tileView } from '../world/views.js';

export const world_look_radius_max = 4;

export const LookSchema = z.strictObject({
  radius: z
    .int()
    .min(0)
    .max(world_look_radius_max)
    .default(2)
    .describe(
      `How many tiles around you to show, counted from your own tile: 0 is your tile only, ${world_look_radius_max} a square of ${2 * world_look_radius_max + 1} x ${2 * world_look_radius_max + 1} tiles.`,
    ),
});

export const worldLook = defineReadAct({
  name: 'world_look',
  summary:
    'Costs 0 AP and changes nothing: your position, AP (and when the next arrives), standing, inventory, and the tiles within radius (default 2) with the members on them.',
  payload: LookSchema,
  signer: 'primary',
  via_act: true,
  gates: { membership: true, pom: false },
  read(ctx, { radius }) {
    const { world, params } = ctx.state;
    const agent = memberOf(ctx);
    const around = [];
    const near = agentsWithin(world, agent.x - radius, agent.y - radius, agent.x + radius, agent.y + radius);
    for (let y = Math.max(0, agent.y - radius); y <= Math.min(WORLD_SIZE - 1, agent.y + radius); y++) {
      for (let x = Math.max(0, agent.x - radius); x <= Math.min(WORLD_SIZE - 1, agent.x + radius); x++) {
        const view = tileView(world, x, y);
        const members = view.revealed
          ? near.filter((other) => other.x === x && other.y === y).map((other) => other.agent_id)
          : [];
        around.push(view.revealed ? { ...view, members } : view);
      }
    }
    const next = nextApAtMs(agent, ctx.at_ms, params);
    return {
      ok: true,
      result: {
        agent_id: agent.agent_id,
        position: { x: agent.x, y: agent.y, z: standingZ(world, agent) },
        biome: BIOMES[world.terrain.biome[tileIndex(agent.x, agent.y)]!],
        ap: apAt(agent, ctx.at_ms, params),
        ap_cap: params.ap_cap,
        next_ap_at: next === null ? null : isoAt(next),
        standing: agent.standing,
        inventory: { ...agent.inventory },
        around,
      },
    };
  },
});
