import { DerivedIndex } from '../derived_index.js';
import { invariant } from '../invariant.js';
import { WORLD_SIZE, tileIndex } from './geometry.js';
import type { WorldAgent, WorldState } from './world_state.js';

/**
 * Members by the tile they stand on, so that "who is near" reads the tiles around a
 * place instead of every member: a look scanned all of them, 27 µs with 100 members
 * and 108 µs with 10,000 (bench/PROFILES.md).
 *
 * Derived from world.agents (engine/derived_index.ts) and kept current by the two ways
 * a member's place changes, here: a member placed on joining, a member moved. Every
 * position change goes through moveAgent; each read checks that a member it finds is
 * filed where it stands.
 */
interface Places {
  by_tile: Map<number, Set<WorldAgent>>;
  filed_on: Map<WorldAgent, number>;
}

const places = new DerivedIndex((agents: WorldState['agents']) => {
  const made: Places = { by_tile: new Map(), filed_on: new Map() };
  for (const agent of agents.values()) file(made, agent);
  return made;
});

function file(into: Places, agent: WorldAgent): void {
  const tile = tileIndex(agent.x, agent.y);
  into.filed_on.set(agent, tile);
  let members = into.by_tile.get(tile);
  if (!members) into.by_tile.set(tile, (members = new Set()));
  members.add(agent);
}

function unfile(from: Places, agent: WorldAgent): void {
  const tile = from.filed_on.get(agent);
  if (tile === undefined) return;
  from.filed_on.delete(agent);
  const members = from.by_tile.get(tile);
  members?.delete(agent);
  if (members?.size === 0) from.by_tile.delete(tile);
}

/** Files a member just added to world.agents (joining the world). */
export function placeAgent(world: WorldState, agent: WorldAgent): void {
  const kept = places.ifMade(world.agents);
  if (kept) file(kept, agent);
}

/** Moves a member to (x, y): the one way a member's position changes. */
export function moveAgent(world: WorldState, agent: WorldAgent, x: number, y: number): void {
  const kept = places.ifMade(world.agents);
  if (kept) unfile(kept, agent);
  agent.x = x;
  agent.y = y;
  if (kept) file(kept, agent);
}

/**
 * The members standing in the square of tiles from (x0, y0) to (x1, y1), inclusive (the
 * part inside the world), in the order they joined: the order of world.agents, as a
 * scan of it gives them.
 */
export function agentsWithin(world: WorldState, x0: number, y0: number, x1: number, y1: number): WorldAgent[] {
  const index = places.of(world.agents);
  const found: WorldAgent[] = [];
  // A wide square on a sparse world: the members are fewer than the tiles, so read them all.
  const area =
    (Math.min(x1, WORLD_SIZE - 1) - Math.max(x0, 0) + 1) * (Math.min(y1, WORLD_SIZE - 1) - Math.max(y0, 0) + 1);
  if (area > index.by_tile.size) {
    for (const [tile, members] of index.by_tile) {
      const [x, y] = [tile % WORLD_SIZE, Math.floor(tile / WORLD_SIZE)];
      if (x >= x0 && x <= x1 && y >= y0 && y <= y1) for (const agent of members) found.push(checked(agent, tile));
    }
  } else {
    for (let y = Math.max(0, y0); y <= Math.min(WORLD_SIZE - 1, y1); y++)
      for (let x = Math.max(0, x0); x <= Math.min(WORLD_SIZE - 1, x1); x++) {
        const tile = tileIndex(x, y);
        for (const agent of index.by_tile.get(tile) ?? []) found.push(checked(agent, tile));
      }
  }
  return found.sort((a, b) => a.ordinal - b.ordinal);
}

function checked(agent: WorldAgent, tile: number): WorldAgent {
  invariant(
    tileIndex(agent.x, agent.y) === tile,
    `${agent.agent_id} stands at (${agent.x}, ${agent.y}) but is filed on tile ${tile}: a position changed outside moveAgent`,
  );
  return agent;
}
