import type { ApplyContext } from '../act.js';
import { BIOMES } from './materials.js';
import { WORLD_SIZE, chunkIndexOfTile, tileIndex } from './geometry.js';
import { awardStanding } from './standing.js';
import { isRevealed, markRevealed, type WorldAgent } from './world_state.js';

const DAY_MS = 86_400_000;

/**
 * Reveals the tiles within reveal_radius of (x, y) for `agent`, recording it as the
 * discoverer of each tile nobody revealed before. Returns how many were new.
 */
export function revealAround(ctx: ApplyContext, agent: WorldAgent, x: number, y: number): number {
  const { world, params } = ctx.state;
  const radius = params.reveal_radius;
  let fresh = 0;
  for (let ty = Math.max(0, y - radius); ty <= Math.min(WORLD_SIZE - 1, y + radius); ty++) {
    for (let tx = Math.max(0, x - radius); tx <= Math.min(WORLD_SIZE - 1, x + radius); tx++) {
      const index = tileIndex(tx, ty);
      if (isRevealed(world, index)) continue;
      markRevealed(world, index);
      world.discoveries.record(index, agent.ordinal + 1, Math.floor(ctx.at_ms / 1000));
      world.chunk_version[chunkIndexOfTile(tx, ty)]! += 1;
      fresh++;
    }
  }
  return fresh;
}

/** The exploration bonus: standing per first-revealed tile, up to a daily number of tiles (UTC days). */
export function payExplorationBonus(ctx: ApplyContext, agent: WorldAgent, fresh_tiles: number): void {
  const { params } = ctx.state;
  const day = Math.floor(ctx.at_ms / DAY_MS);
  if (agent.explore_day !== day) {
    agent.explore_day = day;
    agent.explore_bonus_tiles = 0;
  }
  const rewarded = Math.min(fresh_tiles, params.exploration_bonus_daily_tiles - agent.explore_bonus_tiles);
  if (rewarded <= 0) return;
  agent.explore_bonus_tiles += rewarded;
  awardStanding(ctx, agent, rewarded * params.exploration_bonus_standing, 'exploration', { tiles: rewarded });
}

/** The first member to stand in a biome is recorded, and paid biome_first_standing. */
export function noteBiomeVisit(ctx: ApplyContext, agent: WorldAgent, x: number, y: number): void {
  const { world, params } = ctx.state;
  const biome = world.terrain.biome[tileIndex(x, y)]!;
  if (world.biomes_discovered.has(biome)) return;
  world.biomes_discovered.add(biome);
  ctx.emit({
    event_type: 'biome_first_discovery',
    actor: agent.agent_id,
    data: { agent_id: agent.agent_id, biome: BIOMES[biome]!, position: { x, y } },
  });
  awardStanding(ctx, agent, params.biome_first_standing, 'biome_first_discovery', { biome: BIOMES[biome]! });
}

/** Arriving on a tile: reveal around it and note a first visit to its biome. Returns tiles revealed. */
export function arrive(ctx: ApplyContext, agent: WorldAgent, x: number, y: number): number {
  const fresh = revealAround(ctx, agent, x, y);
  noteBiomeVisit(ctx, agent, x, y);
  return fresh;
}
