/**
 * Zoom levels of the world viewer: CSS pixels per tile is 2^level, from a quarter pixel
 * (the whole 2048-tile plane in 512 px) to 32 px (one tile as a finger-sized square).
 * The page's `z` query, the script's bounds and the docs share these two numbers.
 */
export const WORLD_ZOOM_MIN = -2;
export const WORLD_ZOOM_MAX = 5;

/** A box of tiles: x0, y0 inclusive, x1, y1 exclusive. */
export interface TileBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/** A view as the permalink names it: the centre tile and the zoom level. */
export interface TileView {
  x: number;
  y: number;
  z: number;
}

/** Tiles of margin kept around what a fitted view shows. */
const FIT_MARGIN_TILES = 8;

/** The view that shows a box whole in width_px x height_px at the largest whole level (the map's Fit, done by the server). */
export function fittedView(box: TileBox, width_px: number, height_px: number): TileView {
  const span_x = box.x1 - box.x0 + 2 * FIT_MARGIN_TILES;
  const span_y = box.y1 - box.y0 + 2 * FIT_MARGIN_TILES;
  const level = Math.floor(Math.log2(Math.min(width_px / span_x, height_px / span_y)));
  return {
    x: Math.floor((box.x0 + box.x1) / 2),
    y: Math.floor((box.y0 + box.y1) / 2),
    z: Math.min(WORLD_ZOOM_MAX, Math.max(WORLD_ZOOM_MIN, level)),
  };
}

/** The smallest box holding every tile given, or null for none. */
export function boxOf(tiles: readonly { x: number; y: number }[]): TileBox | null {
  if (tiles.length === 0) return null;
  const box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
  for (const { x, y } of tiles) {
    box.x0 = Math.min(box.x0, x);
    box.y0 = Math.min(box.y0, y);
    box.x1 = Math.max(box.x1, x + 1);
    box.y1 = Math.max(box.y1, y + 1);
  }
  return box;
}
