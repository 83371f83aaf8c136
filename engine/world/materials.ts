/**
 * Biomes and materials, with the numbers the chunk binary and the block table use.
 * A material id doubles as a block id for the materials that can be placed.
 */
export const BIOMES = ['plains', 'forest', 'desert', 'ruins', 'wasteland', 'water', 'mountain'] as const;
export type Biome = (typeof BIOMES)[number];
export const BIOME_WATER = 5;
export const BIOME_UNREVEALED = 255;

export const MATERIALS = [
  'air',
  'dirt',
  'stone',
  'iron',
  'silicon',
  'obsidian',
  'slag',
  'salvage',
  'timber',
  'relic',
  'water',
] as const;
export type Material = (typeof MATERIALS)[number];
export const AIR = 0;
export const STONE = 2;
export const RELIC = 9;
export const WATER = 10;

/** What a member can hold. */
export const RESOURCES = [
  'dirt',
  'stone',
  'iron',
  'silicon',
  'obsidian',
  'slag',
  'salvage',
  'timber',
  'relic',
] as const;
export type Resource = (typeof RESOURCES)[number];

/** The block table: block_id -> the resource it is made of. Every block costs exactly 1 unit. */
export const BLOCKS: Record<number, Resource> = {
  1: 'dirt',
  2: 'stone',
  3: 'iron',
  4: 'silicon',
  5: 'obsidian',
  6: 'slag',
  7: 'salvage',
  8: 'timber',
};
export const BLOCK_COST_UNITS = 1;

export function materialName(id: number): Material {
  const name = MATERIALS[id];
  if (name === undefined) throw new Error(`unknown material ${id}`);
  return name;
}

/** What gathering on a biome's surface yields, if anything. */
export const GATHERABLE: Partial<Record<Biome, Resource>> = { forest: 'timber', ruins: 'salvage', wasteland: 'slag' };

/** The parameter that prices one step onto each biome (water has none: it is impassable). */
export const MOVE_COST_PARAM = {
  plains: 'move_ap_plains',
  forest: 'move_ap_forest',
  desert: 'move_ap_desert',
  ruins: 'move_ap_ruins',
  wasteland: 'move_ap_wasteland',
  mountain: 'move_ap_mountain',
} as const;
