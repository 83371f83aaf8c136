import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIOME_COLOURS, rgbOf } from '../render/map/palette.js';
import { pixelOfTile, WORLD_IMAGE_HEIGHT_PX, WORLD_IMAGE_WIDTH_PX } from '../render/world_image.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { join, WORLD_TEST_GENESIS, type Member } from './helpers/world.js';
import { buildAround, type Builds } from './helpers/world_builds.js';

interface DecodedPng {
  width: number;
  height: number;
  data: Buffer;
}
const { PNG } = createRequire(import.meta.url)('pngjs') as { PNG: { sync: { read(png: Buffer): DecodedPng } } };

/** Whether a pixel is the biome's colour, lit or shaded as the map paints ground (at most 60 % darker, 25 % lighter). */
export function showsBiome(pixel: readonly number[], biome: string): boolean {
  const colour = rgbOf(BIOME_COLOURS[biome as keyof typeof BIOME_COLOURS]);
  const light = pixel[0]! / colour[0];
  return light > 0.4 && light < 1.25 && colour.every((channel, at) => Math.abs(pixel[at]! - channel * light) <= 3);
}

export function pixelAt(png: DecodedPng, x: number, y: number): number[] {
  const at = (Math.floor(y) * png.width + Math.floor(x)) * 4;
  return [png.data[at]!, png.data[at + 1]!, png.data[at + 2]!];
}

describe('GET /world.png', () => {
  let society: TestSociety;
  let builder: Member;
  let built: Builds;

  beforeAll(async () => {
    society = await startTestSociety({ genesis: WORLD_TEST_GENESIS });
    builder = await join(society, 'builder');
    built = await buildAround(society, builder);
  }, 60_000);

  afterAll(async () => {
    await society?.destroy();
  });

  const get = (query: string, headers: Record<string, string> = {}) =>
    fetch(`${society.url}/world.png${query}`, { headers });

  it('draws a zoomed view whose pixels show the chunks’ biomes, away from the marks', async () => {
    const view = { x: built.spot.x, y: built.spot.y, z: 3 };
    const answer = await get(`?x=${view.x}&y=${view.y}&z=${view.z}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('image/png');
    const png = PNG.sync.read(Buffer.from(await answer.arrayBuffer()));
    expect([png.width, png.height]).toEqual([WORLD_IMAGE_WIDTH_PX, WORLD_IMAGE_HEIGHT_PX]);
    let sampled = 0;
    for (const [dx, dy] of [
      [-2, 2],
      [2, 2],
      [-2, -5],
      [2, -5],
      [2, -1],
    ] as const) {
      const tile = (await (await fetch(`${society.url}/api/v1/world/tile/${view.x + dx}/${view.y + dy}`)).json()) as {
        revealed: boolean;
        biome: string;
        top_block: number | null;
        road: boolean;
      };
      if (!tile.revealed || tile.top_block || tile.road) continue;
      const pixel = pixelAt(png, ...pixelOfTile(view, view.x + dx, view.y + dy));
      expect(showsBiome(pixel, tile.biome), `${dx},${dy}: ${pixel} for ${tile.biome}`).toBe(true);
      sampled++;
    }
    expect(sampled).toBeGreaterThanOrEqual(3);
  });

  it('fits what is revealed with no query, and answers 304 to its ETag until the world under it changes', async () => {
    const first = await get('');
    expect(first.status).toBe(200);
    const etag = first.headers.get('etag')!;
    expect(etag).toMatch(/^"[0-9a-f]{40}"$/);
    expect(first.headers.get('cache-control')).toBe('no-cache');
    const again = await get('', { 'If-None-Match': etag });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);
    expect((await again.arrayBuffer()).byteLength).toBe(0);

    const inventory = society.engine.state.world.agents.get(builder.id)!.inventory;
    inventory.iron = 1;
    await builder.client.act('world_place_block', { x: built.spot.x + 1, y: built.spot.y + 1, block_id: 3, z: null });
    const changed = await get('', { 'If-None-Match': etag });
    expect(changed.status).toBe(200);
    expect(changed.headers.get('etag')).not.toBe(etag);
  });

  it('refuses a view it cannot draw with 422, naming the value', async () => {
    for (const query of ['?z=6', '?z=-3', '?x=2048', '?x=-1', '?y=abc', '?x=1.5']) {
      const answer = await get(query);
      expect(answer.status, query).toBe(422);
      const body = (await answer.json()) as { detail: { loc: string[] }[] };
      expect(body.detail[0]!.loc[0]).toBe('query');
    }
  });
});
