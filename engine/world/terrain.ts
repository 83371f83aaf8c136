import { TILE_COUNT, WORLD_SIZE, tileIndex } from './geometry.js';
import { AIR, BIOME_WATER, RELIC, STONE, WATER } from './materials.js';
import { FractalField, hashString, unit3 } from './noise.js';

/**
 * Water stands at z 19 over a floor at z 17 (z 18 and 19 are water, a fluid, not blocks). The
 * specification observed z 18 as air; docs/world.md says why it is water here.
 */
export const WATER_SURFACE_Z = 19;
export const WATER_FLOOR_Z = 17;
/** Obsidian below this z everywhere: the deep layer. */
export const DEEP_Z = 6;

export interface Terrain {
  seed: number;
  /** Biome per tile (see BIOMES), row-major. */
  biome: Uint8Array;
  /** Surface z per tile as generated, before any digging or building. */
  base_height: Uint8Array;
}

/** Allocates a typed array on shared memory, so chunk workers can read the plane without copies. */
export function sharedBytes(length: number): Uint8Array {
  return new Uint8Array(new SharedArrayBuffer(length));
}

/**
 * The plane from the world seed: three coherent noise fields (elevation, moisture,
 * ruin) make regions of each biome; elevation also gives the surface height.
 */
export function generateTerrain(world_seed: string): Terrain {
  const seed = hashString(world_seed);
  const biome = sharedBytes(TILE_COUNT);
  const base_height = new Uint8Array(TILE_COUNT);
  const elevation_field = new FractalField(seed, 256, 5, WORLD_SIZE);
  const moisture_field = new FractalField((seed ^ 0x5bd1e995) >>> 0, 192, 4, WORLD_SIZE);
  const ruin_field = new FractalField((seed ^ 0x27d4eb2f) >>> 0, 48, 3, WORLD_SIZE);
  const elevations = new Float64Array(WORLD_SIZE);
  const moistures = new Float64Array(WORLD_SIZE);
  const ruins = new Float64Array(WORLD_SIZE);
  for (let y = 0; y < WORLD_SIZE; y++) {
    elevation_field.row(y, elevations);
    moisture_field.row(y, moistures);
    ruin_field.row(y, ruins);
    for (let x = 0; x < WORLD_SIZE; x++) {
      const elevation = elevations[x]!;
      const moisture = moistures[x]!;
      const ruin = ruins[x]!;
      const index = tileIndex(x, y);
      let kind: number;
      let height: number;
      if (elevation < 0.4) {
        kind = BIOME_WATER;
        height = WATER_SURFACE_Z;
      } else {
        height = 20 + Math.floor((elevation - 0.4) * 120);
        if (elevation > 0.63) {
          kind = 6; // mountain
          height = Math.min(200, 48 + Math.floor((elevation - 0.63) * 400));
        } else if (ruin > 0.68)
          kind = 3; // ruins
        else if (elevation > 0.56 && moisture < 0.5)
          kind = 4; // wasteland
        else if (moisture < 0.42)
          kind = 2; // desert
        else if (moisture > 0.57)
          kind = 1; // forest
        else kind = 0; // plains
      }
      biome[index] = kind;
      base_height[index] = height;
    }
  }
  return { seed, biome, base_height };
}

/** Materials by biome and depth below the generated surface (d = 0 is the surface cell). */
const LAYERS: Record<number, { surface: number; shallow: number; vein: number; vein_share: number }> = {
  0: { surface: 1, shallow: 1, vein: 3, vein_share: 0.06 }, // plains: dirt, dirt, iron veins in stone
  1: { surface: 1, shallow: 1, vein: 3, vein_share: 0.05 }, // forest
  2: { surface: 4, shallow: 4, vein: 4, vein_share: 0.1 }, // desert: silicon, silicon veins
  3: { surface: 7, shallow: 6, vein: 7, vein_share: 0.08 }, // ruins: salvage, slag, buried salvage
  4: { surface: 6, shallow: 6, vein: 3, vein_share: 0.12 }, // wasteland: slag, rich iron
  5: { surface: 2, shallow: 2, vein: 4, vein_share: 0.05 }, // water floor: stone, silicon
  6: { surface: 2, shallow: 2, vein: 3, vein_share: 0.1 }, // mountain: stone, iron
};

/** One relic per this many ruin tiles, two cells under the surface. */
const RELIC_SHARE = 1 / 1500;

/**
 * The material of an untouched cell. Digging and building are kept apart, as sparse
 * changes; this function alone answers for every cell nobody has touched.
 */
export function naturalMaterial(terrain: Terrain, x: number, y: number, z: number): number {
  const index = tileIndex(x, y);
  const kind = terrain.biome[index]!;
  if (kind === BIOME_WATER && z > WATER_FLOOR_Z) return z <= WATER_SURFACE_Z ? WATER : AIR;
  const surface = kind === BIOME_WATER ? WATER_FLOOR_Z : terrain.base_height[index]!;
  if (z > surface || z < 0) return AIR;
  if (z < DEEP_Z) return 5; // obsidian
  const layer = LAYERS[kind]!;
  const depth = surface - z;
  if (kind === 3 && depth === 2 && unit3(terrain.seed ^ 0x1e1ac, x, y) < RELIC_SHARE) return RELIC;
  if (depth === 0) return layer.surface;
  if (depth <= 3) return layer.shallow;
  return unit3(terrain.seed, x, y, z) < layer.vein_share ? layer.vein : STONE;
}
