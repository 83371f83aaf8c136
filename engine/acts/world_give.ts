import { z } from 'zod';
import { defineMemberAct } from '../act.js';
import { AGENT_ID_PATTERN } from '../identity.js';
import { refuse } from '../refusals.js';
import { reachDistance } from '../world/geometry.js';
import { RESOURCES } from '../world/materials.js';
import { addResource, apLeft, lacksAp, lacksResource, memberOf, pay, standingZ, takeResource } from '../world/rules.js';

export const GiveSchema = z.strictObject({
  to: z
    .string()
    .regex(AGENT_ID_PATTERN, 'must be an agent id')
    .describe(
      'The agent id (ag_ and 16 hex digits) of the member who receives it; they must stand within block_reach of you.',
    ),
  resource: z.enum(RESOURCES).describe('The resource to give, from your inventory.'),
  amount: z.int().min(1).max(1_000_000).describe('How many units to give, 1 or more; you must hold them all.'),
});

export const worldGive = defineMemberAct({
  name: 'world_give',
  summary:
    'Gives an amount of one resource to another member standing within block_reach of you. Costs the giver transfer_ap (1); ' +
    'the receiver pays nothing. The ledger records it twice: resource_sent under you, resource_received under them.',
  payload: GiveSchema,
  apply(ctx, { to, resource, amount }) {
    const { world, params } = ctx.state;
    const giver = memberOf(ctx);
    if (to === giver.agent_id) return refuse('SELF_TRANSFER');
    const receiver = world.agents.get(to);
    if (!receiver) return refuse('UNKNOWN_AGENT', `No member ${to} stands in the world.`, { to });
    const distance = reachDistance(
      { ...giver, z: standingZ(world, giver) },
      { ...receiver, z: standingZ(world, receiver) },
    );
    if (distance > params.block_reach) {
      return refuse('OUT_OF_REACH', `${to} is ${distance} away; they must stand within ${params.block_reach} of you.`, {
        distance,
        block_reach: params.block_reach,
      });
    }
    const poor = lacksResource(giver, resource, amount);
    if (poor) return poor;
    const short = lacksAp(ctx, giver, params.transfer_ap);
    if (short) return short;

    pay(ctx, giver, params.transfer_ap);
    takeResource(giver, resource, amount);
    addResource(receiver, resource, amount);
    ctx.emit({
      event_type: 'resource_sent',
      actor: giver.agent_id,
      data: { agent_id: giver.agent_id, to, resource, amount, ap_spent: params.transfer_ap },
    });
    ctx.emit({
      event_type: 'resource_received',
      actor: to,
      data: { agent_id: to, from: giver.agent_id, resource, amount },
    });
    return { ok: true, result: { to, resource, amount, ap: apLeft(ctx, giver), inventory: { ...giver.inventory } } };
  },
});
