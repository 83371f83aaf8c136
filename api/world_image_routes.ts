import type { Context } from 'koa';
import { z } from 'zod';
import type { Routes } from './routes.js';
import { routeArgsParser } from './read_mount.js';
import {
  drawWorldImage,
  imageChunks,
  imageTiles,
  paintChunk,
  pngOf,
  WORLD_IMAGE_HEIGHT_PX,
  WORLD_IMAGE_WIDTH_PX,
  type PaintedChunk,
  type WorldMarks,
} from '../render/world_image.js';
import { MARK_SIZES_PX } from '../render/map/image_marks.js';
import { fittedView, WORLD_ZOOM_MAX, WORLD_ZOOM_MIN, type TileView } from '../render/map/zoom.js';
import {
  CHUNKS_PER_AXIS,
  memberPositions,
  type ReadContext,
  revealedChunks,
  sha256Hex,
  structuresView,
} from '../engine/index.js';

export const WORLD_IMAGE_PATH = '/world.png';

/** The view asked for, as the page's permalink names it (/world?x=&y=&z=); what is left out is the fitted view's. */
export const WorldImageArgs = z.object({
  x: z.int().min(0).max(2047).optional().describe('The centre tile, west to east'),
  y: z.int().min(0).max(2047).optional().describe('The centre tile, north to south'),
  z: z
    .int()
    .min(WORLD_ZOOM_MIN)
    .max(WORLD_ZOOM_MAX)
    .optional()
    .describe('Zoom level: 2^z image pixels a tile (-2: the whole plane)'),
});

/** Rendered images kept, newest use last; each about 30 to 300 KB. */
const IMAGES_KEPT_MAX = 32;
const IMAGES_KEPT_BYTES_MAX = 16 * 1024 * 1024;

interface KeptImage {
  etag: string;
  png: Buffer;
}

/** What the cache did, for the bench and the tests. */
export interface WorldImageCounts {
  rendered: number;
  kept_hits: number;
  not_modified: number;
}

/**
 * The world images and their ETag. The ETag is a hash of the view, the ETags of the chunk
 * binaries it covers (the chunk cache's, one version check a chunk) and the marks on it,
 * so it moves exactly when a pixel can; a client holding it gets 304 and no work is done.
 * Rendered images are kept (IMAGES_KEPT_MAX, IMAGES_KEPT_BYTES_MAX), and painted chunks
 * per chunk ETag (at most one per chunk of the plane, 16 KB each), so a burst of requests
 * for the same view renders it once, and a changed chunk repaints only itself.
 */
export class WorldImages {
  private readonly kept = new Map<string, KeptImage>();
  private kept_bytes = 0;
  private readonly painted = new Map<number, { etag: string; chunk: PaintedChunk | null }>();
  readonly counts: WorldImageCounts = { rendered: 0, kept_hits: 0, not_modified: 0 };

  /** The view an image with no query shows: everything revealed, fitted. */
  defaultView(context: ReadContext): TileView {
    const chunks = revealedChunks(context.state.world);
    if (chunks.length === 0) return { x: 1024, y: 1024, z: WORLD_ZOOM_MIN };
    const size = 2048 / CHUNKS_PER_AXIS;
    const box = { x0: Infinity, y0: Infinity, x1: -Infinity, y1: -Infinity };
    for (const { chunk_x, chunk_y } of chunks) {
      box.x0 = Math.min(box.x0, chunk_x * size);
      box.y0 = Math.min(box.y0, chunk_y * size);
      box.x1 = Math.max(box.x1, (chunk_x + 1) * size);
      box.y1 = Math.max(box.y1, (chunk_y + 1) * size);
    }
    return fittedView(box, WORLD_IMAGE_WIDTH_PX, WORLD_IMAGE_HEIGHT_PX);
  }

  /** The image of a view: 304 (no body) when `if_none_match` is its ETag. */
  answer(context: ReadContext, view: TileView, if_none_match: string): { etag: string; png?: Buffer } {
    const chunks = imageChunks(view);
    const chunk_etags = chunks.map(
      (chunk) => context.chunks.get(chunk % CHUNKS_PER_AXIS, Math.floor(chunk / CHUNKS_PER_AXIS)).etag,
    );
    const marks = marksIn(context, view);
    const etag = `"${sha256Hex(JSON.stringify([view, chunk_etags, marks])).slice(0, 40)}"`;
    if (if_none_match === etag) {
      this.counts.not_modified++;
      return { etag };
    }
    const hit = this.kept.get(etag);
    if (hit) {
      this.counts.kept_hits++;
      // A Map iterates in insertion order: moved to the end, it is the last to go.
      this.kept.delete(etag);
      this.kept.set(etag, hit);
      return hit;
    }
    const covered = new Map(chunks.map((chunk, at) => [chunk, this.paintedChunk(context, chunk, chunk_etags[at]!)]));
    const png = pngOf(drawWorldImage(view, (chunk) => covered.get(chunk) ?? null, marks));
    this.counts.rendered++;
    this.keep({ etag, png });
    return { etag, png };
  }

  private paintedChunk(context: ReadContext, chunk: number, etag: string): PaintedChunk | null {
    const hit = this.painted.get(chunk);
    if (hit && hit.etag === etag) return hit.chunk;
    const body = context.chunks.get(chunk % CHUNKS_PER_AXIS, Math.floor(chunk / CHUNKS_PER_AXIS)).body;
    const painted = paintChunk(body);
    this.painted.set(chunk, { etag, chunk: painted });
    return painted;
  }

  private keep(image: KeptImage): void {
    this.kept.set(image.etag, image);
    this.kept_bytes += image.png.length;
    for (const [etag, old] of this.kept) {
      if (this.kept.size <= IMAGES_KEPT_MAX && this.kept_bytes <= IMAGES_KEPT_BYTES_MAX) break;
      this.kept.delete(etag);
      this.kept_bytes -= old.png.length;
    }
  }
}

/** Members and structures near enough to the image to show on it (a mark reaches past its tile). */
function marksIn(context: ReadContext, view: TileView): WorldMarks {
  const reach = Math.ceil(MARK_SIZES_PX.hub_radius / 2 ** view.z) + 1;
  const tiles = imageTiles(view);
  const near = ({ x, y }: { x: number; y: number }) =>
    x >= tiles.x0 - reach && x < tiles.x1 + reach && y >= tiles.y0 - reach && y < tiles.y1 + reach;
  const built = structuresView(context.state);
  const members = memberPositions(context.state).flatMap(({ x, y }) =>
    x === undefined || y === undefined || !near({ x, y }) ? [] : [{ x, y }],
  );
  // Links are kept whole (both masts), so a link crossing the image is drawn across it.
  const linked = new Set(built.links.flatMap((link) => [link.from_relay_id, link.to_relay_id]));
  return {
    members,
    masts: built.masts
      .filter((mast) => near(mast) || linked.has(mast.relay_id))
      .map(({ relay_id, x, y }) => ({ relay_id, x, y })),
    links: built.links,
    hub: built.hub && near(built.hub) ? { x: built.hub.x, y: built.hub.y } : null,
    roads: built.roads.filter(near),
  };
}

/** GET /world.png: the image of a view, cached by ETag (no-cache: revalidate, as the chunks are). */
export function mountWorldImageRoute(router: Routes, read: () => ReadContext, images = new WorldImages()): void {
  const argsOf = routeArgsParser(WorldImageArgs, WORLD_IMAGE_PATH);
  router.get(WORLD_IMAGE_PATH, (ctx: Context) => {
    const asked = argsOf({ params: {}, query: ctx.query }) as z.output<typeof WorldImageArgs>;
    const context = read();
    const fitted =
      asked.x === undefined || asked.y === undefined || asked.z === undefined ? images.defaultView(context) : undefined;
    const view = { x: asked.x ?? fitted!.x, y: asked.y ?? fitted!.y, z: asked.z ?? fitted!.z };
    const { etag, png } = images.answer(context, view, ctx.get('If-None-Match'));
    ctx.set({ ETag: etag, 'Cache-Control': 'no-cache' });
    if (!png) {
      ctx.status = 304;
      return;
    }
    ctx.type = 'image/png';
    ctx.body = png;
  });
}
