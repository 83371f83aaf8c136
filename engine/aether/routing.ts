import type { AetherState } from './aether_state.js';

/**
 * Under the range rule a message needs a route: a mast within reach of the sender,
 * then links from mast to mast, to the mast the Hub stands on. Breadth-first over the
 * masts; returns the relay ids of the route, or undefined when there is none.
 */
export function routeToHub(aether: AetherState, x: number, y: number, reach_tiles: number): number[] | undefined {
  if (!aether.hub) return undefined;
  const starts = aether.masts.filter((mast) => Math.max(Math.abs(mast.x - x), Math.abs(mast.y - y)) <= reach_tiles);
  const came_from = new Map<number, number | null>();
  const queue: number[] = [];
  for (const mast of starts) {
    came_from.set(mast.relay_id, null);
    queue.push(mast.relay_id);
  }
  while (queue.length > 0) {
    const relay_id = queue.shift()!;
    if (relay_id === aether.hub.relay_id) {
      const path: number[] = [];
      for (let at: number | null = relay_id; at !== null; at = came_from.get(at)!) path.unshift(at);
      return path;
    }
    for (const next of aether.masts[relay_id - 1]!.links) {
      if (came_from.has(next)) continue;
      came_from.set(next, relay_id);
      queue.push(next);
    }
  }
  return undefined;
}
