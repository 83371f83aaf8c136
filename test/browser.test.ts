import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium } from './helpers/chromium.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { findTile, join, standOn, stepInto, worldOf } from './helpers/world.js';

const ARTIFACTS = 'test-artifacts';

describe.skipIf(!chromiumPath)('in a real browser', () => {
  let society: TestSociety;
  let browser: Browser;

  beforeAll(async () => {
    society = await startTestSociety({ genesis: { world_seed: 'world-tests' } });
    const walker = await join(society, 'walker');
    const world = worldOf(society);
    // Reveal two biomes side by side, so the map has more than one colour to draw.
    const edge = findTile(world, (x, y, biome) => biome === 'plains' && stepInto(world, x, y, 'forest') !== undefined);
    standOn(society, walker, edge.x, edge.y);
    await walker.client.act('world_move', { path: [stepInto(world, edge.x, edge.y, 'forest')!] });
    await walker.client.act('aether_send', {
      body: '<script>window.pwned = 1</script><img src=x onerror="window.pwned = 2">',
      scope: 'auto',
      route: 'global',
    });
    browser = await launchChromium();
    mkdirSync(ARTIFACTS, { recursive: true });
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await society?.destroy();
  });

  it('draws the revealed chunks of the world map, by biome colour', async () => {
    const page = await browser.newPage({ viewport: { width: 900, height: 1000 } });
    await page.goto(`${society.url}/world`);
    // Functions, not strings: the page's CSP forbids eval. This project's TypeScript has no DOM types, hence `any`.
    await page.waitForFunction(
      () => (globalThis as any).document.getElementById('map')?.dataset.drawn !== undefined,
      null,
      { timeout: 20_000 },
    );
    const colours = await page.evaluate(() => {
      const canvas = (globalThis as any).document.getElementById('map');
      const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data as Uint8ClampedArray;
      const seen = new Set<string>();
      for (let i = 0; i < data.length; i += 4) seen.add(`${data[i]},${data[i + 1]},${data[i + 2]}`);
      return [...seen];
    });
    const biome_colours = [
      '156,204,101',
      '46,125,50',
      '230,201,106',
      '141,110,99',
      '158,158,158',
      '74,144,217',
      '93,64,55',
    ];
    expect(colours.filter((colour) => biome_colours.includes(colour)).length).toBeGreaterThan(1);
    await page.screenshot({ path: `${ARTIFACTS}/world.png` });
    await page.close();
  });

  it('runs no script a member wrote, and saves a screenshot of the front page', async () => {
    const page = await browser.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(`${society.url}/aether`);
    expect(await page.evaluate(() => (globalThis as any).pwned)).toBeUndefined();
    expect(await page.locator('article').first().textContent()).toContain('<script>');
    expect(dialogs).toEqual([]);
    await page.goto(`${society.url}/`);
    expect(await page.locator('.notice').first().textContent()).toContain('public');
    await page.screenshot({ path: `${ARTIFACTS}/home.png`, fullPage: true });
    await page.close();
  });
});
