import type { TestSociety } from './society.js';
import { biomeAt, findTile, type Member, standOn, worldOf } from './world.js';

export interface Builds {
  /** Where the builder stands: a relay mast on it, a road west of it, a stone block east of it. */
  spot: { x: number; y: number };
  block: { x: number; y: number; block_id: number };
  road: { x: number; y: number };
  masts: number[];
}

/**
 * Builds one of everything around a land tile, through the real acts: the materials are
 * arranged (put in the inventory, as the world tests do), the acts are signed and paid.
 * A second mast three tiles north is linked to the first and carries the Hub.
 */
export async function buildAround(society: TestSociety, member: Member): Promise<Builds> {
  const world = worldOf(society);
  const land = (x: number, y: number) => biomeAt(world, x, y) !== 'water' && biomeAt(world, x, y) !== 'mountain';
  const spot = findTile(
    world,
    (x, y) =>
      [-1, 0, 1].every((dx) => [-3, -2, -1, 0].every((dy) => land(x + dx, y + dy))) && land(x, y - 3) && land(x, y),
    1100,
    1000,
  );
  standOn(society, member, spot.x, spot.y + 1);
  // Walking in reveals the tiles around (the builder becomes their discoverer).
  await member.client.act('world_move', { path: ['n'] });
  const inventory = worldOf(society).agents.get(member.id)!.inventory;
  Object.assign(inventory, { stone: 1, slag: 6, iron: 40, silicon: 35, relic: 1, obsidian: 30 });
  const block = { x: spot.x + 1, y: spot.y, block_id: 2 };
  await member.client.act('world_place_block', { ...block, z: null });
  const road = { x: spot.x - 1, y: spot.y };
  await member.client.act('world_build_road', road);
  standOn(society, member, spot.x, spot.y - 3);
  await member.client.act('aether_build_mast', {});
  standOn(society, member, spot.x, spot.y);
  await member.client.act('aether_build_mast', {});
  await member.client.act('aether_link', { from_relay_id: 2, to_relay_id: 1 });
  await member.client.act('aether_build_hub', { relay_id: 1 });
  return { spot, block, road, masts: [1, 2] };
}
