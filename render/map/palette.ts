import { BIOMES, BLOCKS } from '../../engine/world/materials.js';
import type { TileColours } from './tile_paint.js';

/**
 * The map's colours, one source for the canvas (handed to /assets/map.js as JSON) and the
 * legend's swatches (CSS classes: the CSP's style-src 'self' forbids style attributes).
 * Biomes keep the colours the map has always used; blocks are darker or more saturated
 * than the biomes they usually sit on, so a placed block stands out from the ground.
 */
export const BIOME_COLOURS: Record<(typeof BIOMES)[number], string> = {
  plains: '#9ccc65',
  forest: '#2e7d32',
  desert: '#e6c96a',
  ruins: '#8d6e63',
  wasteland: '#9e9e9e',
  water: '#4a90d9',
  mountain: '#5d4037',
};

/** By block id (the chunk binary's layer 3 and the block table of docs/world.md). */
export const BLOCK_COLOURS: Record<number, string> = {
  1: '#6d4c2f',
  2: '#546e7a',
  3: '#b0431e',
  4: '#7e57c2',
  5: '#1a1a2e',
  6: '#ff8f00',
  7: '#00897b',
  8: '#c2185b',
};

/**
 * Unrevealed tiles: a dark slate hatch, darker and bluer than any biome, drawn at screen
 * size (so no zoom scales it into a field that reads as ground). A pixel is on a hatch
 * line when (x + y) mod period_px < line_px (fogHatch, render/map/tile_paint.ts).
 */
export const FOG = { ground: '#343a45', line: '#59616f', period_px: 8, line_px: 3 } as const;
/** Beyond the plane's edge. */
export const OUTSIDE_COLOUR = '#cfcabe';
export const ROAD_COLOUR = '#3b3b3b';
/** A road's edge: light, so a dark road shows on dark ground (forest, mountain) too. */
export const ROAD_EDGE_COLOUR = '#f4efe2';
export const MAST_COLOUR = '#d81b60';
export const LINK_COLOUR = '#d81b60';
export const HUB_COLOUR = '#ffd600';
export const MEMBER_COLOUR = '#0d47a1';

/** What the script needs, in the order of the chunk binary's ids. */
export function paletteJson(): string {
  return JSON.stringify({
    biomes: BIOMES.map((biome) => BIOME_COLOURS[biome]),
    biome_names: BIOMES,
    tiles: tileColours(),
    blocks: BLOCK_COLOURS,
    block_names: BLOCKS,
    fog: FOG,
    outside: OUTSIDE_COLOUR,
    road: ROAD_COLOUR,
    road_edge: ROAD_EDGE_COLOUR,
    mast: MAST_COLOUR,
    link: LINK_COLOUR,
    hub: HUB_COLOUR,
    member: MEMBER_COLOUR,
  });
}

/** The legend's swatch classes: `.swatch.biome-plains`, `.swatch.block-3`, `.swatch.fog`, ... */
export function swatchCss(): string {
  const rules = [
    ...BIOMES.map((biome) => `.swatch.biome-${biome}{background:${BIOME_COLOURS[biome]}}`),
    ...Object.entries(BLOCK_COLOURS).map(([id, colour]) => `.swatch.block-${id}{background:${colour}}`),
    `.swatch.fog{background:repeating-linear-gradient(135deg,${FOG.ground} 0 3.5px,${FOG.line} 3.5px 5.7px)}`,
    `.swatch.road{background:linear-gradient(${ROAD_COLOUR},${ROAD_COLOUR}) center/100% 40% no-repeat #fff}`,
    `.swatch.mast{background:${MAST_COLOUR};border-radius:0;clip-path:polygon(50% 0,100% 100%,0 100%)}`,
    `.swatch.link{background:${LINK_COLOUR};height:.2em;vertical-align:middle}`,
    `.swatch.hub{background:${HUB_COLOUR};clip-path:polygon(50% 0,100% 50%,50% 100%,0 50%)}`,
    `.swatch.member{background:${MEMBER_COLOUR};border-radius:50%}`,
  ];
  return rules.join('\n');
}

/** "#rrggbb" as [r, g, b]. */
export function rgbOf(hex: string): [number, number, number] {
  return [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16)) as [number, number, number];
}

/** The colours tiles are painted with, by the chunk binary's ids. */
export function tileColours(): TileColours {
  return {
    biomes: BIOMES.map((biome) => rgbOf(BIOME_COLOURS[biome])),
    blocks: Object.fromEntries(Object.entries(BLOCK_COLOURS).map(([id, hex]) => [id, rgbOf(hex)])),
  };
}
