import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIOME_COLOURS, rgbOf } from '../render/map/palette.js';
import { pixelOfTile, WORLD_IMAGE_HEIGHT_PX, WORLD_IMAGE_WIDTH_PX } from '../render/world_image.js';
import { chromiumPath, launchChromium } from './helpers/chromium.js';
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
function showsBiome(pixel: readonly number[], biome: string): boolean {
  const colour = rgbOf(BIOME_COLOURS[biome as keyof typeof BIOME_COLOURS]);
  const light = pixel[0]! / colour[0];
  return light > 0.4 && light < 1.25 && colour.every((channel, at) => Math.abs(pixel[at]! - channel * light) <= 3);
}

function pixelAt(png: DecodedPng, x: number, y: number): number[] {
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

  /** Samples tiles around the builder, away from the marks, and holds each pixel to its tile's biome. */
  async function expectBiomes(png: DecodedPng, view: { x: number; y: number; z: number }): Promise<void> {
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
  }

  it('draws a zoomed view whose pixels show the chunks’ biomes, away from the marks', async () => {
    const view = { x: built.spot.x, y: built.spot.y, z: 3 };
    const answer = await get(`?x=${view.x}&y=${view.y}&z=${view.z}`);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('image/png');
    const png = PNG.sync.read(Buffer.from(await answer.arrayBuffer()));
    expect([png.width, png.height]).toEqual([WORLD_IMAGE_WIDTH_PX, WORLD_IMAGE_HEIGHT_PX]);
    await expectBiomes(png, view);
  });

  it.skipIf(!chromiumPath)(
    'shows the world without JavaScript: the image, the members, the busiest places',
    async () => {
      const browser = await launchChromium();
      mkdirSync('test-artifacts', { recursive: true });
      try {
        for (const width of [390, 1280]) {
          const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width, height: 844 } });
          const page = await context.newPage();
          await page.goto(`${society.url}/world`);
          const image = page.locator('img.map-image');
          await image.waitFor({ state: 'visible' });
          const shown = await image.evaluate((img: any) => ({
            loaded: img.complete,
            width: img.naturalWidth,
            top: img.getBoundingClientRect().top,
            src: img.src,
          }));
          expect(shown).toMatchObject({ loaded: true, width: WORLD_IMAGE_WIDTH_PX });
          expect(shown.top, 'the image leads the page').toBeLessThan(400);
          expect(await page.locator('#map').isVisible()).toBe(false);
          expect(await page.locator('#map-tools').isVisible()).toBe(false);
          expect(await page.locator('main').textContent()).toContain('builder');
          const zoomed = await page.locator('a[href^="/world.png?"]').first().getAttribute('href');
          expect(zoomed).toMatch(/^\/world\.png\?x=\d+&y=\d+&z=-?\d$/);
          await page.screenshot({ path: `test-artifacts/world-nojs-${width}.png`, fullPage: true });
          await context.close();
        }
        // A permalink's page shows that view's image; its pixels are the chunks' biomes.
        const view = { x: built.spot.x, y: built.spot.y, z: 3 };
        const context = await browser.newContext({ javaScriptEnabled: false });
        const page = await context.newPage();
        await page.goto(`${society.url}/world?x=${view.x}&y=${view.y}&z=${view.z}`);
        const src = await page.locator('img.map-image').getAttribute('src');
        expect(src).toBe(`/world.png?x=${view.x}&y=${view.y}&z=${view.z}`);
        const shown = await page.request.get(`${society.url}${src}`);
        await expectBiomes(PNG.sync.read(await shown.body()), view);
        await context.close();
      } finally {
        await browser.close();
      }
    },
  );

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

  it("is the /world page's link preview: an absolute og:image of the view asked for, which answers an image", async () => {
    const html = await (await fetch(`${society.url}/world?x=1000&y=1010&z=2`)).text();
    const head = html.slice(0, html.indexOf('</head>'));
    const image = /<meta property="og:image" content="([^"]+)">/.exec(head)?.[1]?.replaceAll('&#38;', '&');
    expect(image).toMatch(/^https?:\/\/[^/]+\/world\.png\?x=1000&y=1010&z=2$/);
    expect(head).toContain(`<meta property="og:image:width" content="${WORLD_IMAGE_WIDTH_PX}">`);
    expect(head).toMatch(/<meta property="og:image:alt" content="The revealed world drawn by the server/);
    const answer = await fetch(`${society.url}${new URL(image!).pathname}${new URL(image!).search}`);
    expect([answer.status, answer.headers.get('content-type')]).toEqual([200, 'image/png']);
    // Only the world has a preview image; other pages carry no Open Graph lines.
    expect(await (await fetch(`${society.url}/ledger`)).text()).not.toContain('og:image');
    // The page's own 422 for the same bad value says the bound in words.
    const refused = await (await fetch(`${society.url}/world?z=99`)).text();
    expect(refused).toContain('The query value z (99) must be at most 5.');
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
