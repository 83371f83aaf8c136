import { moveAgent } from '../../engine/world/agent_places.js';
import { generateKey, type AgentKey } from '../../client/keys.js';
import { TesseraClient, TesseraError } from '../../client/sdk.js';
import { DIRECTIONS, WORLD_SIZE, tileIndex, type Direction } from '../../engine/world/geometry.js';
import { BIOMES } from '../../engine/world/materials.js';
import type { WorldState } from '../../engine/world/world_state.js';
import type { TestSociety } from './society.js';

/** Genesis settings for world tests: plenty of AP, so a test pays for what it does without waiting. */
export const WORLD_TEST_GENESIS = { world_seed: 'world-tests', params: { ap_at_registration: 300, ap_cap: 1000 } };

export interface Member {
  key: AgentKey;
  client: TesseraClient;
  id: string;
}

export async function join(society: TestSociety, handle: string): Promise<Member> {
  const key = await generateKey();
  const client = new TesseraClient(society.url, key);
  await client.register(handle);
  return { key, client, id: key.agent_id };
}

export function worldOf(society: TestSociety): WorldState {
  return society.engine.state.world;
}

/** Test arrangement only: puts a member on a tile directly, as if it had walked there. */
export function standOn(society: TestSociety, member: Member, x: number, y: number): void {
  const world = worldOf(society);
  moveAgent(world, world.agents.get(member.id)!, x, y);
}

/** The nearest tile to (from_x, from_y), ring by ring, that satisfies the test. */
export function findTile(
  world: WorldState,
  test: (x: number, y: number, biome: string) => boolean,
  from_x = 1024,
  from_y = 1024,
): { x: number; y: number } {
  for (let radius = 0; radius < WORLD_SIZE; radius++) {
    for (let dy = -radius; dy <= radius; dy++) {
      for (let dx = -radius; dx <= radius; dx++) {
        if (Math.max(Math.abs(dx), Math.abs(dy)) !== radius) continue;
        const x = from_x + dx;
        const y = from_y + dy;
        if (x < 1 || y < 1 || x >= WORLD_SIZE - 1 || y >= WORLD_SIZE - 1) continue;
        if (test(x, y, BIOMES[world.terrain.biome[tileIndex(x, y)]!]!)) return { x, y };
      }
    }
  }
  throw new Error('no such tile');
}

export function biomeAt(world: WorldState, x: number, y: number): string {
  return BIOMES[world.terrain.biome[tileIndex(x, y)]!]!;
}

/** The direction whose step from (x, y) lands on a tile of `biome`, if any. */
export function stepInto(world: WorldState, x: number, y: number, biome: string): Direction | undefined {
  return (Object.keys(DIRECTIONS) as Direction[]).find((direction) => {
    const [dx, dy] = DIRECTIONS[direction];
    return biomeAt(world, x + dx, y + dy) === biome;
  });
}

export async function refusal(promise: Promise<unknown>): Promise<TesseraError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  if (!(error instanceof TesseraError)) throw new Error(`expected a refusal, got ${JSON.stringify(error)}`);
  return error;
}

export async function look(member: Member): Promise<any> {
  return (await member.client.act('world_look', { radius: 2 })).result;
}

/**
 * Test arrangement only: puts a member on a plains tile whose east neighbour is plains too,
 * and gives the steps that walk it east, then back west, and so on: a move that is always
 * possible and always costs 1 AP, wherever the member's key made it spawn.
 */
export function pacing(society: TestSociety, member: Member): () => Direction {
  const world = worldOf(society);
  const tile = findTile(world, (x, y, biome) => biome === 'plains' && biomeAt(world, x + 1, y) === 'plains');
  standOn(society, member, tile.x, tile.y);
  let east = true;
  return () => {
    const direction: Direction = east ? 'e' : 'w';
    east = !east;
    return direction;
  };
}
