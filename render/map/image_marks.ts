/**
 * What lies on the ground in the server's world image (render/world_image.ts), drawn into
 * an RGBA buffer at a fixed size in pixels, as the map draws them at a fixed size on
 * screen: a mast or a member stays visible however far out the image is.
 */
export interface Raster {
  width: number;
  height: number;
  rgba: Uint8Array;
}

export type Rgb = readonly [number, number, number];

/** The marks' sizes in image pixels: fixed, so they never shrink with the tiles. */
export const MARK_SIZES_PX = { member_radius: 5, mast_radius: 8, hub_radius: 11, road_width: 3, link_width: 2 };

function put(raster: Raster, x: number, y: number, colour: Rgb): void {
  if (x < 0 || y < 0 || x >= raster.width || y >= raster.height) return;
  const at = (y * raster.width + x) * 4;
  raster.rgba[at] = colour[0];
  raster.rgba[at + 1] = colour[1];
  raster.rgba[at + 2] = colour[2];
  raster.rgba[at + 3] = 255;
}

export function fillRect(raster: Raster, x: number, y: number, width: number, height: number, colour: Rgb): void {
  const x0 = Math.max(0, Math.floor(x));
  const y0 = Math.max(0, Math.floor(y));
  const x1 = Math.min(raster.width, Math.ceil(x + width));
  const y1 = Math.min(raster.height, Math.ceil(y + height));
  for (let py = y0; py < y1; py++) for (let px = x0; px < x1; px++) put(raster, px, py, colour);
}

/** A shape given as "is this offset from the centre inside", filled over a square of the radius, with an outline. */
function fillShape(
  raster: Raster,
  cx: number,
  cy: number,
  radius: number,
  inside: (dx: number, dy: number, r: number) => boolean,
  colour: Rgb,
  outline: Rgb,
): void {
  const reach = Math.ceil(radius) + 1;
  for (let dy = -reach; dy <= reach; dy++)
    for (let dx = -reach; dx <= reach; dx++) {
      if (inside(dx, dy, radius - 1.2)) put(raster, Math.round(cx + dx), Math.round(cy + dy), colour);
      else if (inside(dx, dy, radius)) put(raster, Math.round(cx + dx), Math.round(cy + dy), outline);
    }
}

const disc = (dx: number, dy: number, r: number) => dx * dx + dy * dy <= r * r;
/** Point up, base down, as the map's mast. */
const triangle = (dx: number, dy: number, r: number) => dy <= r && dy >= -r && Math.abs(dx) <= (dy + r) / 2;
const diamond = (dx: number, dy: number, r: number) => Math.abs(dx) + Math.abs(dy) <= r;

const WHITE: Rgb = [255, 255, 255];
const BLACK: Rgb = [0, 0, 0];

export function member(raster: Raster, x: number, y: number, colour: Rgb): void {
  fillShape(raster, x, y, MARK_SIZES_PX.member_radius, disc, colour, WHITE);
}

export function mast(raster: Raster, x: number, y: number, colour: Rgb): void {
  fillShape(raster, x, y, MARK_SIZES_PX.mast_radius, triangle, colour, WHITE);
}

export function hub(raster: Raster, x: number, y: number, colour: Rgb): void {
  fillShape(raster, x, y, MARK_SIZES_PX.hub_radius, diamond, colour, BLACK);
}

/** The part of a segment inside the raster (and a margin of `pad`), as a range of its parameter t in [0, 1]. */
function clipped(raster: Raster, from: [number, number], to: [number, number], pad: number): [number, number] {
  let low = 0;
  let high = 1;
  for (const [start, end, size] of [
    [from[0], to[0], raster.width],
    [from[1], to[1], raster.height],
  ] as const) {
    const delta = end - start;
    if (delta === 0) {
      if (start < -pad || start > size + pad) return [1, 0];
      continue;
    }
    const a = (-pad - start) / delta;
    const b = (size + pad - start) / delta;
    low = Math.max(low, Math.min(a, b));
    high = Math.min(high, Math.max(a, b));
  }
  return [low, high];
}

/** A line of the given width, as a run of squares along the part of it inside the image. */
export function line(raster: Raster, from: [number, number], to: [number, number], width: number, colour: Rgb): void {
  const [low, high] = clipped(raster, from, to, width);
  if (high < low) return;
  const length = Math.hypot(to[0] - from[0], to[1] - from[1]) * (high - low);
  const steps = Math.max(1, Math.ceil(length));
  for (let step = 0; step <= steps; step++) {
    const t = low + ((high - low) * step) / steps;
    const x = from[0] + (to[0] - from[0]) * t;
    const y = from[1] + (to[1] - from[1]) * t;
    fillRect(raster, x - width / 2, y - width / 2, width, width, colour);
  }
}
