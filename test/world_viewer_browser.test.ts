import { mkdirSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BIOME_COLOURS,
  BLOCK_COLOURS,
  FOG,
  HUB_COLOUR,
  LINK_COLOUR,
  MAST_COLOUR,
  ROAD_COLOUR,
} from '../render/map/palette.js';
import { WORLD_ZOOM_MAX, WORLD_ZOOM_MIN } from '../render/map/zoom.js';
import { chromiumPath, launchChromium } from './helpers/chromium.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { join, standOn, WORLD_TEST_GENESIS, type Member } from './helpers/world.js';
import { buildAround, type Builds } from './helpers/world_builds.js';

const ARTIFACTS = 'test-artifacts';
// This project's TypeScript has no DOM types, hence `any` inside page.evaluate; functions, never strings (CSP).

const rgb = (hex: string) => [1, 3, 5].map((at) => parseInt(hex.slice(at, at + 2), 16)).join(',');

/** Waits until every revealed chunk is drawn and a frame has followed. */
async function mapReady(page: Page): Promise<void> {
  await page.waitForFunction(
    () => {
      const canvas = (globalThis as any).document.getElementById('map');
      return canvas?.dataset.drawn !== undefined && Number(canvas.dataset.drawn) > 0;
    },
    null,
    { timeout: 20_000 },
  );
  await page.evaluate(() => new Promise((done) => (globalThis as any).requestAnimationFrame(() => done(null))));
  await page.waitForTimeout(50);
}

/** The colour the canvas shows at a point of a tile (fractions of the tile from its top-left corner). */
function colourAt(page: Page, x: number, y: number): Promise<string> {
  return page.evaluate(
    ([tx, ty]) => {
      const canvas = (globalThis as any).document.getElementById('map');
      const ratio = canvas.width / canvas.getBoundingClientRect().width;
      const scale = 2 ** Number(canvas.dataset.zoom);
      const sx = (tx! - Number(canvas.dataset.centerX)) * scale + canvas.width / ratio / 2;
      const sy = (ty! - Number(canvas.dataset.centerY)) * scale + canvas.height / ratio / 2;
      const pixel = canvas.getContext('2d').getImageData(Math.floor(sx * ratio), Math.floor(sy * ratio), 1, 1).data;
      return `${pixel[0]},${pixel[1]},${pixel[2]}`;
    },
    [x, y],
  );
}

/** Every colour on the canvas, with how many pixels show it. */
function colours(page: Page): Promise<Record<string, number>> {
  return page.evaluate(() => {
    const canvas = (globalThis as any).document.getElementById('map');
    const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data as Uint8ClampedArray;
    const seen: Record<string, number> = {};
    for (let i = 0; i < data.length; i += 4) {
      const key = `${data[i]},${data[i + 1]},${data[i + 2]}`;
      seen[key] = (seen[key] ?? 0) + 1;
    }
    return seen;
  });
}

const dataset = (page: Page) =>
  page.evaluate(() => ({ ...(globalThis as any).document.getElementById('map').dataset }) as Record<string, string>);

describe.skipIf(!chromiumPath)('the world viewer in a real browser', () => {
  let society: TestSociety;
  let browser: Browser;
  let builder: Member;
  let built: Builds;
  const errors: string[] = [];

  async function open(path: string, options: Parameters<Browser['newPage']>[0] = {}): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1000, height: 900 }, ...options });
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`${path}: ${message.text()}`);
    });
    page.on('pageerror', (error) => errors.push(`${path}: ${error.message}`));
    await page.goto(`${society.url}${path}`);
    await mapReady(page);
    return page;
  }

  beforeAll(async () => {
    society = await startTestSociety({ genesis: WORLD_TEST_GENESIS });
    builder = await join(society, 'builder');
    built = await buildAround(society, builder);
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await society?.destroy();
  });

  it('fits the revealed world, drawn by biome, with fog around it, and labels the member with its handle', async () => {
    const page = await open('/world');
    await page.screenshot({ path: `${ARTIFACTS}/world-viewer.png`, fullPage: true });
    const seen = await colours(page);
    // Relief lights a biome's colour up by at most a quarter, sunk ground darkens it by at most 60 %; the hue stays.
    const biomes = Object.values(BIOME_COLOURS).map((hex) => rgb(hex).split(',').map(Number));
    const isBiome = (key: string) => {
      const pixel = key.split(',').map(Number);
      return biomes.some((biome) => {
        const light = pixel[0]! / biome[0]!;
        return light > 0.4 && light < 1.25 && pixel.every((channel, at) => Math.abs(channel - biome[at]! * light) <= 3);
      });
    };
    const biome_pixels = Object.entries(seen).reduce((sum, [key, count]) => sum + (isBiome(key) ? count : 0), 0);
    const revealed = (await (await fetch(`${society.url}/api/v1/world/revealed`)).json()) as {
      chunks: { revealed_tiles: number }[];
    };
    const tiles = revealed.chunks.reduce((sum, chunk) => sum + chunk.revealed_tiles, 0);
    // Most revealed tiles show their biome; markers and labels cover the rest.
    expect(biome_pixels).toBeGreaterThan(0.5 * tiles * 4 ** Number((await dataset(page)).zoom));
    expect(seen[rgb(FOG.ground)] ?? 0, 'fog').toBeGreaterThan(1000);
    expect(seen[rgb(FOG.line)] ?? 0, 'fog hatch').toBeGreaterThan(500);
    expect(seen['0,0,0'] ?? 0, 'no black').toBeLessThan(50);
    const { labels, zoom, drawn } = await dataset(page);
    expect(labels!.split(' ')).toContain('builder');
    expect(Number(zoom)).toBeGreaterThanOrEqual(1);
    expect(Number(drawn)).toBeGreaterThan(0);
    expect(await page.locator('.map-legend').textContent()).toContain('not yet revealed');
    await page.close();
  });

  it('opens at a permalink and draws the placed block, the road and the mast there; the URL follows a pan', async () => {
    const { spot, block, road } = built;
    const page = await open(`/world?x=${spot.x}&y=${spot.y}&z=${WORLD_ZOOM_MAX}`);
    await page.screenshot({ path: `${ARTIFACTS}/world-viewer-close.png` });
    const at = await dataset(page);
    expect([Number(at.centerX), Number(at.centerY), Number(at.zoom)]).toEqual([spot.x + 0.5, spot.y + 0.5, 5]);
    // Below the member's label, in the block's tile; the road's square sits in the middle of its tile.
    expect(await colourAt(page, block.x + 0.5, block.y + 0.85)).toBe(rgb(BLOCK_COLOURS[block.block_id]!));
    expect(await colourAt(page, road.x + 0.5, road.y + 0.5)).toBe(rgb(ROAD_COLOUR));
    // Mast 2 under the member (its triangle shows below the marker), mast 1 under the Hub, the link between.
    expect(await colourAt(page, spot.x + 0.5, spot.y + 0.875)).toBe(rgb(MAST_COLOUR));
    expect(await colourAt(page, spot.x + 0.5, spot.y - 2.5)).toBe(rgb(HUB_COLOUR));
    expect(await colourAt(page, spot.x + 0.5, spot.y - 1)).toBe(rgb(LINK_COLOUR));
    await page.screenshot({ path: `${ARTIFACTS}/world-viewer-close.png` });

    const box = (await page.locator('#map').boundingBox())!;
    await page.mouse.move(box.x + 200, box.y + 200);
    await page.mouse.down();
    await page.mouse.move(box.x + 300, box.y + 250, { steps: 5 });
    await page.mouse.up();
    await page.waitForTimeout(300);
    const moved = new URL(page.url());
    expect(Number(moved.searchParams.get('x'))).toBe(Math.floor(spot.x + 0.5 - 100 / 32));
    expect(Number(moved.searchParams.get('y'))).toBe(Math.floor(spot.y + 0.5 - 50 / 32));
    expect(moved.searchParams.get('z')).toBe('5');
    expect(await page.locator('#map-permalink').getAttribute('href')).toBe(moved.pathname + moved.search);
    await page.close();
  });

  it('zooms within its bounds, never onto an empty screen', async () => {
    const page = await open(`/world?x=${built.spot.x}&y=${built.spot.y}&z=0`);
    const box = (await page.locator('#map').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (const [delta, bound] of [
      [-100, WORLD_ZOOM_MAX],
      [100, WORLD_ZOOM_MIN],
    ] as const) {
      for (let i = 0; i < 20; i++) await page.mouse.wheel(0, delta);
      await page.waitForTimeout(100);
      expect(Number((await dataset(page)).zoom)).toBe(bound);
      expect(Object.keys(await colours(page)).length, `colours at zoom ${bound}`).toBeGreaterThan(2);
    }
    await page.click('#map-fit');
    const fitted = await dataset(page);
    await page.click('#map-zoom-in');
    expect(Number((await dataset(page)).zoom)).toBe(Number(fitted.zoom) + 1);
    await page.focus('#map');
    await page.keyboard.press('-');
    await page.keyboard.press('ArrowRight');
    const keyed = await dataset(page);
    expect(keyed.zoom).toBe(fitted.zoom);
    expect(Number(keyed.centerX)).toBeGreaterThan(Number(fitted.centerX));
    await page.keyboard.press('0');
    expect((await dataset(page)).centerX).toBe(fitted.centerX);
    await page.close();
  });

  it('works by touch on a 390 px phone: a tap opens the tile panel with the discoverer, a drag pans, a pinch zooms', async () => {
    const { spot } = built;
    const context = await browser.newContext({
      viewport: { width: 390, height: 844 },
      deviceScaleFactor: 3,
      hasTouch: true,
      isMobile: true,
    });
    const page = await context.newPage();
    page.on('pageerror', (error) => errors.push(`phone: ${error.message}`));
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(`phone: ${message.text()}`);
    });
    await page.goto(`${society.url}/world?x=${spot.x}&y=${spot.y}&z=4`);
    await mapReady(page);
    expect(
      await page.evaluate(
        () => (globalThis as any).document.documentElement.scrollWidth <= (globalThis as any).innerWidth,
      ),
    ).toBe(true);
    // Sharp on a phone: the backing store is in device pixels.
    const sizes = await page.evaluate(() => {
      const canvas = (globalThis as any).document.getElementById('map');
      return { backing: canvas.width, css: canvas.getBoundingClientRect().width };
    });
    expect(sizes.backing).toBe(Math.round(sizes.css * 3));
    const tile = (await (await fetch(`${society.url}/api/v1/world/tile/${spot.x}/${spot.y}`)).json()) as {
      discovered_by: string;
      biome: string;
    };
    expect(tile.discovered_by).toBe(builder.id);

    await page.locator('#map').scrollIntoViewIfNeeded();
    const box = (await page.locator('#map').boundingBox())!;
    const centre = { x: box.x + box.width / 2, y: box.y + box.height / 2 };
    await page.touchscreen.tap(centre.x, centre.y);
    await page.locator('#tile-panel dl').waitFor();
    // The panel opens over the map, inside the phone's viewport, never below the fold.
    const panel_box = (await page.locator('#tile-panel').boundingBox())!;
    expect(panel_box.y).toBeGreaterThanOrEqual(0);
    expect(panel_box.y + panel_box.height).toBeLessThanOrEqual(844);
    expect(panel_box.x + panel_box.width).toBeLessThanOrEqual(390);
    const panel = await page.locator('#tile-panel').textContent();
    expect(panel).toContain(`x ${spot.x}, y ${spot.y}`);
    expect(panel).toContain(tile.biome);
    expect(panel).toContain(`builder (${builder.id})`);

    // Gestures on the upper half: the panel lies over the lower one.
    const grip = { x: centre.x, y: box.y + box.height / 4 };
    const cdp = await context.newCDPSession(page);
    const touch = (type: 'touchStart' | 'touchMove' | 'touchEnd', points: { x: number; y: number }[]) =>
      cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points.map((p, id) => ({ ...p, id })) });
    await touch('touchStart', [grip]);
    for (let step = 1; step <= 5; step++) await touch('touchMove', [{ x: grip.x - step * 16, y: grip.y }]);
    await touch('touchEnd', []);
    await page.waitForTimeout(100);
    expect(Number((await dataset(page)).centerX)).toBeCloseTo(spot.x + 0.5 + 80 / 16, 1);

    const before = Number((await dataset(page)).zoom);
    await touch('touchStart', [
      { x: grip.x - 20, y: grip.y },
      { x: grip.x + 20, y: grip.y },
    ]);
    for (let step = 1; step <= 5; step++)
      await touch('touchMove', [
        { x: grip.x - 20 - step * 8, y: grip.y },
        { x: grip.x + 20 + step * 8, y: grip.y },
      ]);
    // One finger lifts, then the other, as hands do.
    await touch('touchEnd', [{ x: grip.x - 60, y: grip.y }]);
    await touch('touchEnd', []);
    await page.waitForTimeout(100);
    expect(Number((await dataset(page)).zoom)).toBeGreaterThan(before);
    // Neither the drag nor the pinch was taken for a tap.
    expect(await page.locator('#tile-panel').getAttribute('data-tile')).toBe(`${spot.x},${spot.y}`);
    await page.screenshot({ path: `${ARTIFACTS}/world-viewer-phone.png`, fullPage: true });
    await context.close();
  });

  it('refreshes by ETag: an unchanged chunk is revalidated and not repainted, a changed one is', async () => {
    const { spot } = built;
    const page = await open(`/world?x=${spot.x}&y=${spot.y}&z=5`);
    // What went over the wire: the page's own Response shows the cached 200 that a 304 revalidated.
    const chunk_requests = new Set<string>();
    const chunk_statuses: number[] = [];
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Network.enable');
    cdp.on('Network.requestWillBeSent', ({ requestId, request }) => {
      if (request.url.includes('/api/v1/world/chunk/')) chunk_requests.add(requestId);
    });
    cdp.on('Network.responseReceivedExtraInfo', ({ requestId, statusCode }) => {
      if (chunk_requests.has(requestId)) chunk_statuses.push(statusCode);
    });
    // The page refreshes when it becomes visible again, as it does every 15 s.
    const refreshed = async () => {
      const before = await dataset(page);
      await page.evaluate(() => (globalThis as any).document.dispatchEvent(new Event('visibilitychange')));
      await page.waitForFunction(
        (count) => (globalThis as any).document.getElementById('map').dataset.refreshes !== count,
        before.refreshes,
        { timeout: 10_000 },
      );
      return Number((await dataset(page)).repainted) - Number(before.repainted);
    };
    expect(await refreshed()).toBe(0);
    expect(chunk_statuses.length).toBeGreaterThan(0);
    expect(chunk_statuses.length).toBeGreaterThan(0);
    expect(
      chunk_statuses.every((status) => status === 304),
      String(chunk_statuses),
    ).toBe(true);

    const inventory = society.engine.state.world.agents.get(builder.id)!.inventory;
    inventory.iron = 1;
    const iron = { x: spot.x + 1, y: spot.y + 1, block_id: 3 };
    await builder.client.act('world_place_block', { ...iron, z: null });
    expect(await refreshed()).toBe(1);
    expect(await colourAt(page, iron.x + 0.5, iron.y + 0.5)).toBe(rgb(BLOCK_COLOURS[3]!));
    await page.close();
  });

  it('labels a stack of three members on one tile once, with +2, over everything and clear of every dot', async () => {
    const { spot } = built;
    const stack = { x: spot.x - 2, y: spot.y + 1 };
    for (const handle of ['cyd', 'ada', 'bea']) standOn(society, await join(society, handle), stack.x, stack.y);
    for (const zoom of [5, 2]) {
      const page = await open(`/world?x=${spot.x}&y=${spot.y}&z=${zoom}`);
      const at = await dataset(page);
      expect(at.labels, `zoom ${zoom}`).toContain('ada +2');
      // Close in, the builder's own label fits too; far out, on a crowded spot, it may be left out (and counted).
      if (zoom === 5) expect(at.labels).toContain('builder');
      const boxes = JSON.parse(at.labelBoxes!) as [number, number, number, number][];
      const dots = JSON.parse(at.dots!) as [number, number, number][];
      const hits = (a: number[], b: number[]) =>
        a[0]! < b[0]! + b[2]! && b[0]! < a[0]! + a[2]! && a[1]! < b[1]! + b[3]! && b[1]! < a[1]! + a[3]!;
      for (const [i, box] of boxes.entries()) {
        for (const other of boxes.slice(i + 1)) expect(hits(box, other), 'labels apart').toBe(false);
        for (const [x, y, r] of dots)
          expect(hits(box, [x - r, y - r, 2 * r, 2 * r]), `label ${i} clear of dots`).toBe(false);
        // Nothing is painted over a label: just inside its edge the label's own white shows.
        const pixel = await page.evaluate(
          ([x, y]) => {
            const canvas = (globalThis as any).document.getElementById('map');
            const ratio = canvas.width / canvas.getBoundingClientRect().width;
            return [...canvas.getContext('2d').getImageData(Math.round(x! * ratio), Math.round(y! * ratio), 1, 1).data];
          },
          [box[0] + 2, box[1] + 2],
        );
        expect(Math.min(...pixel.slice(0, 3)), `label ${i} white at ${pixel}`).toBeGreaterThan(200);
      }
      await page.close();
    }
  });

  it('shows the mast under a member at a far zoom, the marks keeping their size', async () => {
    const { spot } = built;
    const page = await open(`/world?x=${spot.x}&y=${spot.y}&z=1`);
    await page.screenshot({ path: `${ARTIFACTS}/world-viewer-far.png` });
    // 2 px a tile: the mast (radius 8 px) shows 6 px below the centre of the member's dot (radius 4 px and its edge).
    expect(await colourAt(page, spot.x + 0.5, spot.y + 0.5 + 6 / 2)).toBe(rgb(MAST_COLOUR));
    expect((await colours(page))[rgb(HUB_COLOUR)] ?? 0, 'the Hub').toBeGreaterThan(20);
    expect((await dataset(page)).labels).toContain('builder');
    await page.close();
  });

  it('draws a legend of plain swatches in the map colours, apart from their words', async () => {
    const page = await open('/world');
    const swatches = await page.evaluate(() =>
      [...(globalThis as any).document.querySelectorAll('.map-legend .swatch')].map((swatch: any) => {
        const style = (globalThis as any).getComputedStyle(swatch);
        const before = (globalThis as any).getComputedStyle(swatch, '::before').content;
        const own = swatch.getBoundingClientRect();
        const words = swatch.nextElementSibling.getBoundingClientRect();
        return {
          kind: swatch.className,
          colour: style.backgroundColor,
          before,
          width: own.width,
          gap: words.left - own.right,
        };
      }),
    );
    expect(swatches.length).toBeGreaterThanOrEqual(20);
    for (const swatch of swatches) {
      expect(swatch.before, swatch.kind).toMatch(/^(none|normal)$/);
      expect(swatch.width, swatch.kind).toBeGreaterThanOrEqual(14);
      expect(swatch.gap, swatch.kind).toBeGreaterThanOrEqual(4);
    }
    for (const [biome, hex] of Object.entries(BIOME_COLOURS))
      expect(swatches.find((swatch) => swatch.kind.includes(`biome-${biome}`))?.colour).toBe(
        `rgb(${rgb(hex).replaceAll(',', ', ')})`,
      );
    await page.close();
  });

  it('shows /world at 390 and 1280 px for a reviewer (test-artifacts/)', async () => {
    for (const width of [390, 1280]) {
      const page = await open('/world', { viewport: { width, height: 844 } });
      await page.screenshot({ path: `${ARTIFACTS}/world-${width}.png`, fullPage: true });
      const map = (await page.locator('#map').boundingBox())!;
      // The map leads the page, and on a phone spans it edge to edge.
      expect(map.y).toBeLessThan(400);
      if (width === 390) expect(map.width).toBe(390);
      await page.close();
    }
  });

  it('logged no console errors on any of it', () => {
    expect(errors).toEqual([]);
  });
});
