import type { SocietyState } from '../state.js';
import { WORLD_SIZE } from './geometry.js';

/**
 * What members built on the plane, for the public structures read and the world page.
 * Lists are capped so one answer stays small (about 40 bytes a road, 80 a mast): a
 * society that outgrows a cap is told so by `truncated`, and keeps the lowest relay ids
 * and the roads in row-major order, so the cut is stable from one answer to the next.
 */
export const STRUCTURES_MAX_MASTS = 2_000;
export const STRUCTURES_MAX_ROADS = 10_000;

export interface StructuresView {
  masts: { relay_id: number; x: number; y: number; builder: string }[];
  /** Each link once, the lower relay_id first. */
  links: { from_relay_id: number; to_relay_id: number }[];
  hub: { relay_id: number; x: number; y: number; builder: string } | null;
  roads: { x: number; y: number }[];
  truncated: { masts: boolean; roads: boolean };
}

const roads_cache = new WeakMap<Set<number>, { size: number; roads: { x: number; y: number }[] }>();

/** Roads are never removed, so a set of the same size holds the same roads: sorted once per change. */
function sortedRoads(roads: Set<number>): { x: number; y: number }[] {
  const cached = roads_cache.get(roads);
  if (cached && cached.size === roads.size) return cached.roads;
  const sorted = [...roads]
    .sort((a, b) => a - b)
    .map((index) => ({ x: index % WORLD_SIZE, y: Math.floor(index / WORLD_SIZE) }));
  roads_cache.set(roads, { size: roads.size, roads: sorted });
  return sorted;
}

export function structuresView(state: Readonly<SocietyState>): StructuresView {
  const kept = state.aether.masts.slice(0, STRUCTURES_MAX_MASTS);
  const links: StructuresView['links'] = [];
  for (const mast of kept)
    for (const other of [...mast.links].sort((a, b) => a - b))
      if (other > mast.relay_id && other <= kept.length)
        links.push({ from_relay_id: mast.relay_id, to_relay_id: other });
  const roads = sortedRoads(state.world.roads);
  const hub = state.aether.hub;
  return {
    masts: kept.map(({ relay_id, x, y, builder }) => ({ relay_id, x, y, builder })),
    links,
    hub: hub ? { relay_id: hub.relay_id, x: hub.x, y: hub.y, builder: hub.builder } : null,
    roads: roads.slice(0, STRUCTURES_MAX_ROADS),
    truncated: { masts: state.aether.masts.length > kept.length, roads: roads.length > STRUCTURES_MAX_ROADS },
  };
}
