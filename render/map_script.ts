import { MAP_CHUNKS } from './map/chunks.js';
import { MAP_CORE } from './map/core.js';
import { MAP_DRAW } from './map/draw.js';
import { MAP_INPUT } from './map/input.js';
import { MAP_LOAD } from './map/load.js';
import { paletteJson } from './map/palette.js';
import { MAP_PANEL } from './map/panel.js';
import { fogHatch, paintChunkTiles } from './map/tile_paint.js';

/**
 * The world viewer's browser script, served as /assets/map.js (no inline script: the CSP
 * forbids it). One function body assembled from the pieces under render/map/, each one
 * concern (view arithmetic, chunks, drawing, input, the tile panel, loading), sharing one
 * scope; the colours come from render/map/palette.ts, the legend's source too. It only
 * reads public routes. The tile painting rule and the fog hatch are the server image's own
 * functions (render/map/tile_paint.ts), carried as their source: one rule, two painters.
 */
export const MAP_SCRIPT = `(() => {
  'use strict';
  const PALETTE = ${paletteJson()};
  ${paintChunkTiles.toString()}
  ${fogHatch.toString()}
${MAP_CORE}
${MAP_CHUNKS}
${MAP_DRAW}
${MAP_PANEL}
${MAP_INPUT}
${MAP_LOAD}
})();
`;
