/**
 * Zoom levels of the world viewer: CSS pixels per tile is 2^level, from a quarter pixel
 * (the whole 2048-tile plane in 512 px) to 32 px (one tile as a finger-sized square).
 * The page's `z` query, the script's bounds and the docs share these two numbers.
 */
export const WORLD_ZOOM_MIN = -2;
export const WORLD_ZOOM_MAX = 5;
