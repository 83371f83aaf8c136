import { hashString } from './noise.js';
import { WORLD_SIZE, tileIndex } from './geometry.js';
import { BIOME_WATER } from './materials.js';
import type { WorldState } from './world_state.js';

const spawn_scatter_tiles = 32;

/**
 * A deterministic spawn near the centre: a point scattered by the agent id within
 * spawn_scatter_tiles of the centre, then the nearest land tile, ring by ring.
 */
export function spawnPoint(world: WorldState, agent_id: string): { x: number; y: number } {
  const h = hashString(agent_id);
  const cx = WORLD_SIZE / 2 + ((h & 0xffff) % (2 * spawn_scatter_tiles + 1)) - spawn_scatter_tiles;
  const cy = WORLD_SIZE / 2 + ((h >>> 16) % (2 * spawn_scatter_tiles + 1)) - spawn_scatter_tiles;
  for (let radius = 0; radius < WORLD_SIZE; radius++) {
    for (let dy = -radius; dy <= radius; dy++) {
      for (let dx = -radius; dx <= radius; dx++) {
        if (Math.max(Math.abs(dx), Math.abs(dy)) !== radius) continue;
        const x = cx + dx;
        const y = cy + dy;
        if (x < 0 || y < 0 || x >= WORLD_SIZE || y >= WORLD_SIZE) continue;
        if (world.terrain.biome[tileIndex(x, y)] !== BIOME_WATER) return { x, y };
      }
    }
  }
  throw new Error('the world has no land');
}
