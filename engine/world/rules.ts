import type { ApplyContext, ReadContext } from '../act.js';
import { invariant } from '../invariant.js';
import type { Params } from '../params.js';
import { refuse, type Refusal } from '../refusals.js';
import { isoAt } from '../time.js';
import { apAt, apAvailableAtMs, spendAp } from './ap.js';
import { inWorld, reachDistance, tileIndex } from './geometry.js';
import type { WorldAgent, WorldState } from './world_state.js';

/**
 * The checks every world act shares, each returning the refusal it stands for, so an
 * act reads as a list of checks followed by its changes.
 */
/** The actor's place in the world; the membership gate has already let only members through. */
export function memberOf(ctx: ApplyContext | ReadContext): WorldAgent {
  const agent = ctx.state.world.agents.get(ctx.actor);
  invariant(agent, `${ctx.actor} passed the membership gate without a place in the world`);
  return agent;
}

export function outOfBounds(x: number, y: number): Refusal | undefined {
  return inWorld(x, y)
    ? undefined
    : refuse('OUT_OF_BOUNDS', `(${x}, ${y}) is outside the world: x and y run 0-2047.`, { x, y });
}

/** The z an agent's reach is measured from: the surface of the tile it stands on. */
export function standingZ(world: WorldState, agent: { x: number; y: number }): number {
  return world.surface[tileIndex(agent.x, agent.y)]!;
}

export function outOfReach(ctx: ApplyContext, agent: WorldAgent, x: number, y: number, z: number): Refusal | undefined {
  const from = { x: agent.x, y: agent.y, z: standingZ(ctx.state.world, agent) };
  const distance = reachDistance(from, { x, y, z });
  const reach = ctx.state.params.block_reach;
  if (distance <= reach) return undefined;
  return refuse(
    'OUT_OF_REACH',
    `(${x}, ${y}, z ${z}) is ${distance} away; your reach is ${reach} (depth counts like distance).`,
    { distance, block_reach: reach },
  );
}

export function lacksAp(ctx: ApplyContext, agent: WorldAgent, needed: number): Refusal | undefined {
  const params: Params = ctx.state.params;
  const available = apAt(agent, ctx.at_ms, params);
  if (available >= needed) return undefined;
  const when = apAvailableAtMs(agent, needed, ctx.at_ms, params);
  return refuse('NOT_ENOUGH_AP', `This needs ${needed} AP; you have ${available}.`, {
    ap_needed: needed,
    ap_available: available,
    ap_available_at: when === null ? null : isoAt(when),
  });
}

export function lacksResource(agent: WorldAgent, resource: string, needed: number): Refusal | undefined {
  const held = agent.inventory[resource] ?? 0;
  if (held >= needed) return undefined;
  return refuse('CANNOT_AFFORD', `This needs ${needed} ${resource}; you hold ${held}.`, { resource, needed, held });
}

export function pay(ctx: ApplyContext, agent: WorldAgent, ap: number): void {
  if (ap <= 0) return;
  spendAp(agent, ap, ctx.at_ms, ctx.state.params);
  ctx.noteApSpent(ap);
}

export function addResource(agent: WorldAgent, resource: string, amount: number): void {
  agent.inventory[resource] = (agent.inventory[resource] ?? 0) + amount;
}

export function takeResource(agent: WorldAgent, resource: string, amount: number): void {
  const left = (agent.inventory[resource] ?? 0) - amount;
  invariant(left >= 0, `inventory of ${resource} went negative`);
  if (left === 0) delete agent.inventory[resource];
  else agent.inventory[resource] = left;
}

/** The AP an agent holds after this act, for the act's answer and entry. */
export function apLeft(ctx: ApplyContext, agent: WorldAgent): number {
  return apAt(agent, ctx.at_ms, ctx.state.params);
}
