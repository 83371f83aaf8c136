import { boxOf, fittedView, type TileView } from './zoom.js';

/** The size a place's link is fitted to: about a desktop map's, so a phone sees the middle of it. */
const PLACE_WIDTH_PX = 1000;
const PLACE_HEIGHT_PX = 600;
/** The level a single tile's link opens at: 16 px a tile. */
const TILE_LEVEL = 4;

/** The view (the permalink's x, y, z) that shows every tile given, or null for none. */
export function viewOf(tiles: readonly { x: number; y: number }[]): TileView | null {
  const box = boxOf(tiles);
  if (!box) return null;
  if (tiles.length === 1) return { x: tiles[0]!.x, y: tiles[0]!.y, z: TILE_LEVEL };
  const fitted = fittedView(box, PLACE_WIDTH_PX, PLACE_HEIGHT_PX);
  return { ...fitted, z: Math.min(fitted.z, TILE_LEVEL) };
}

export function permalink(view: TileView): string {
  return `/world?x=${view.x}&y=${view.y}&z=${view.z}`;
}

/** The server's image of the same view (GET /world.png), a level further out: an image is smaller than a map. */
export function imageLink(view: TileView): string {
  return `/world.png?x=${view.x}&y=${view.y}&z=${view.z - 1}`;
}

/** A busy place: a 64-tile square of the plane and the members in it, centred on them. */
export interface BusyPlace {
  view: TileView;
  members: number;
}

/** Squares of the plane by how many members stand in them, the most first (ties: north-west first). */
export function busiestPlaces(members: readonly { x?: number; y?: number }[], places_max: number): BusyPlace[] {
  const squares = new Map<number, { x: number; y: number }[]>();
  for (const { x, y } of members) {
    if (x === undefined || y === undefined) continue;
    const key = Math.floor(y / 64) * 32 + Math.floor(x / 64);
    squares.set(key, [...(squares.get(key) ?? []), { x, y }]);
  }
  return [...squares.entries()]
    .sort(([a, one], [b, other]) => other.length - one.length || a - b)
    .slice(0, places_max)
    .map(([, tiles]) => ({ view: viewOf(tiles)!, members: tiles.length }));
}
