import { createRequire } from 'node:module';
import { decodeChunk, LAYER_BIOME, LAYER_HEIGHT, LAYER_TOP_BLOCK } from '../engine/world/chunk_codec.js';
import { CHUNK_SIZE, CHUNKS_PER_AXIS, WORLD_SIZE } from '../engine/world/geometry.js';
import { hub, line, mast, MARK_SIZES_PX, member, fillRect, type Raster, type Rgb } from './map/image_marks.js';
import {
  FOG,
  HUB_COLOUR,
  LINK_COLOUR,
  MAST_COLOUR,
  MEMBER_COLOUR,
  OUTSIDE_COLOUR,
  rgbOf,
  ROAD_COLOUR,
  tileColours,
} from './map/palette.js';
import { fogHatch, paintChunkTiles } from './map/tile_paint.js';
import type { TileView } from './map/zoom.js';

/**
 * The world as a PNG drawn by the server, for a visitor without JavaScript and as the
 * page's preview: the same chunk binaries the map reads, painted by the map's own rule
 * (render/map/tile_paint.ts) and palette, with members and structures as marks of a
 * fixed size on top. The image is always the same size, whatever it shows: at the
 * farthest level a pixel samples one tile in four, so one render costs the same
 * (its pixels) however much of the plane it covers.
 */
export const WORLD_IMAGE_WIDTH_PX = 1200;
/** 1200 x 630: the size link previews (og:image) show whole. */
export const WORLD_IMAGE_HEIGHT_PX = 630;

/** A chunk painted once per version: RGBA per tile (transparent where unrevealed) and its placed blocks. */
export interface PaintedChunk {
  rgba: Uint8Array;
  blocks: { x: number; y: number; block_id: number }[];
}

/** What lies on the ground: the world_agents and world_structures reads' lists, already cut to the image. */
export interface WorldMarks {
  members: { x: number; y: number }[];
  masts: { relay_id: number; x: number; y: number }[];
  links: { from_relay_id: number; to_relay_id: number }[];
  hub: { x: number; y: number } | null;
  roads: { x: number; y: number }[];
}

const TILE_COLOURS = tileColours();
const COLOURS = {
  outside: rgbOf(OUTSIDE_COLOUR),
  fog_ground: rgbOf(FOG.ground),
  fog_line: rgbOf(FOG.line),
  road: rgbOf(ROAD_COLOUR),
  link: rgbOf(LINK_COLOUR),
  mast: rgbOf(MAST_COLOUR),
  hub: rgbOf(HUB_COLOUR),
  member: rgbOf(MEMBER_COLOUR),
};

/** Below this many pixels a tile, a placed block gets a mark of its own: its one pixel would not show. */
const BLOCK_MARK_BELOW_PX_PER_TILE = 4;
const BLOCK_MARK_PX = 4;

/** Paints one chunk binary (GET /api/v1/world/chunk/{x}/{y}); null when none of its tiles is revealed. */
export function paintChunk(body: Uint8Array): PaintedChunk | null {
  const chunk = decodeChunk(body);
  const biome = chunk.layers.get(LAYER_BIOME)!;
  const block = chunk.layers.get(LAYER_TOP_BLOCK);
  const rgba = new Uint8Array(CHUNK_SIZE * CHUNK_SIZE * 4);
  const layers = { biome, height: chunk.layers.get(LAYER_HEIGHT)!, block };
  if (paintChunkTiles(layers, TILE_COLOURS, rgba) === 0) return null;
  const blocks: PaintedChunk['blocks'] = [];
  if (block)
    for (let tile = 0; tile < block.length; tile++)
      if (block[tile]! > 0)
        blocks.push({
          x: chunk.chunk_x * CHUNK_SIZE + (tile % CHUNK_SIZE),
          y: chunk.chunk_y * CHUNK_SIZE + Math.floor(tile / CHUNK_SIZE),
          block_id: block[tile]!,
        });
  return { rgba, blocks };
}

/** The tiles an image of this view covers, clamped to the plane: x0, y0 inclusive, x1, y1 exclusive. */
export function imageTiles(view: TileView): { x0: number; y0: number; x1: number; y1: number } {
  const scale = 2 ** view.z;
  const half_x = WORLD_IMAGE_WIDTH_PX / 2 / scale;
  const half_y = WORLD_IMAGE_HEIGHT_PX / 2 / scale;
  const clamp = (value: number) => Math.min(WORLD_SIZE, Math.max(0, value));
  return {
    x0: clamp(Math.floor(view.x + 0.5 - half_x)),
    y0: clamp(Math.floor(view.y + 0.5 - half_y)),
    x1: clamp(Math.ceil(view.x + 0.5 + half_x)),
    y1: clamp(Math.ceil(view.y + 0.5 + half_y)),
  };
}

/** The chunks (index = chunk_y * 32 + chunk_x) an image of this view covers. */
export function imageChunks(view: TileView): number[] {
  const tiles = imageTiles(view);
  const chunks: number[] = [];
  const last = (end: number) => Math.min(CHUNKS_PER_AXIS - 1, Math.floor((end - 1) / CHUNK_SIZE));
  for (let cy = Math.floor(tiles.y0 / CHUNK_SIZE); cy <= last(tiles.y1); cy++)
    for (let cx = Math.floor(tiles.x0 / CHUNK_SIZE); cx <= last(tiles.x1); cx++) chunks.push(cy * CHUNKS_PER_AXIS + cx);
  return chunks;
}

/** Where the centre of a tile falls in the image, in pixels (fractional). */
export function pixelOfTile(view: TileView, x: number, y: number): [number, number] {
  const scale = 2 ** view.z;
  return [
    (x + 0.5 - (view.x + 0.5)) * scale + WORLD_IMAGE_WIDTH_PX / 2,
    (y + 0.5 - (view.y + 0.5)) * scale + WORLD_IMAGE_HEIGHT_PX / 2,
  ];
}

/** The ground: each pixel takes the tile under its centre; the fog hatch where the tile is unrevealed. */
function drawGround(raster: Raster, view: TileView, chunkAt: (chunk: number) => PaintedChunk | null): void {
  const scale = 2 ** view.z;
  const { width, height, rgba } = raster;
  const tile_x = new Int32Array(width);
  for (let px = 0; px < width; px++) tile_x[px] = Math.floor(view.x + 0.5 + (px + 0.5 - width / 2) / scale);
  for (let py = 0; py < height; py++) {
    const ty = Math.floor(view.y + 0.5 + (py + 0.5 - height / 2) / scale);
    for (let px = 0; px < width; px++) {
      const tx = tile_x[px]!;
      const at = (py * width + px) * 4;
      let colour: Rgb;
      if (tx < 0 || ty < 0 || tx >= WORLD_SIZE || ty >= WORLD_SIZE) colour = COLOURS.outside;
      else {
        const chunk = chunkAt(Math.floor(ty / CHUNK_SIZE) * CHUNKS_PER_AXIS + Math.floor(tx / CHUNK_SIZE));
        const from = ((ty % CHUNK_SIZE) * CHUNK_SIZE + (tx % CHUNK_SIZE)) * 4;
        if (chunk && chunk.rgba[from + 3] !== 0) {
          rgba[at] = chunk.rgba[from]!;
          rgba[at + 1] = chunk.rgba[from + 1]!;
          rgba[at + 2] = chunk.rgba[from + 2]!;
          rgba[at + 3] = 255;
          continue;
        }
        colour = fogHatch(px, py, FOG.period_px, FOG.line_px) ? COLOURS.fog_line : COLOURS.fog_ground;
      }
      rgba[at] = colour[0];
      rgba[at + 1] = colour[1];
      rgba[at + 2] = colour[2];
      rgba[at + 3] = 255;
    }
  }
}

/** Roads, block marks when tiles are too small to show a block, links, masts, the Hub, then members on top. */
function drawMarks(raster: Raster, view: TileView, marks: WorldMarks, blocks: PaintedChunk['blocks']): void {
  const scale = 2 ** view.z;
  const at = (x: number, y: number) => pixelOfTile(view, x, y);
  const road_px = Math.max(MARK_SIZES_PX.road_width, scale * 0.4);
  for (const road of marks.roads) {
    const [x, y] = at(road.x, road.y);
    fillRect(raster, x - road_px / 2, y - road_px / 2, road_px, road_px, COLOURS.road);
  }
  if (scale < BLOCK_MARK_BELOW_PX_PER_TILE) {
    for (const block of blocks) {
      const [x, y] = at(block.x, block.y);
      fillRect(raster, x - BLOCK_MARK_PX / 2, y - BLOCK_MARK_PX / 2, BLOCK_MARK_PX, BLOCK_MARK_PX, rgbOf('#000000'));
      const colour = TILE_COLOURS.blocks[block.block_id] as Rgb | undefined;
      if (colour) fillRect(raster, x - BLOCK_MARK_PX / 2 + 1, y - BLOCK_MARK_PX / 2 + 1, 2, 2, colour);
    }
  }
  const masts = new Map(marks.masts.map((one) => [one.relay_id, one]));
  for (const link of marks.links) {
    const a = masts.get(link.from_relay_id);
    const b = masts.get(link.to_relay_id);
    if (a && b) line(raster, at(a.x, a.y), at(b.x, b.y), MARK_SIZES_PX.link_width, COLOURS.link);
  }
  for (const one of marks.masts) mast(raster, ...at(one.x, one.y), COLOURS.mast);
  if (marks.hub) hub(raster, ...at(marks.hub.x, marks.hub.y), COLOURS.hub);
  for (const one of marks.members) member(raster, ...at(one.x, one.y), COLOURS.member);
}

/** The image of a view as RGBA pixels. */
export function drawWorldImage(
  view: TileView,
  chunkAt: (chunk: number) => PaintedChunk | null,
  marks: WorldMarks,
): Raster {
  const raster: Raster = {
    width: WORLD_IMAGE_WIDTH_PX,
    height: WORLD_IMAGE_HEIGHT_PX,
    rgba: new Uint8Array(WORLD_IMAGE_WIDTH_PX * WORLD_IMAGE_HEIGHT_PX * 4),
  };
  drawGround(raster, view, chunkAt);
  const blocks = imageChunks(view).flatMap((chunk) => chunkAt(chunk)?.blocks ?? []);
  drawMarks(raster, view, marks, blocks);
  return raster;
}

interface PngWriter {
  PNG: { sync: { write(png: { width: number; height: number; data: Buffer }, options: object): Buffer } };
}
// pngjs is CommonJS without types of its own: this one call is all that is used of it.
const { PNG } = createRequire(import.meta.url)('pngjs') as PngWriter;

/** RGB without alpha (every pixel is opaque); a quick deflate: the cache keeps the result, the CPU is the cost. */
export function pngOf(raster: Raster): Buffer {
  const data = Buffer.from(raster.rgba.buffer, raster.rgba.byteOffset, raster.rgba.byteLength);
  return PNG.sync.write(
    { width: raster.width, height: raster.height, data },
    { colorType: 2, deflateLevel: 4, filterType: 1 },
  );
}
