import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium } from './helpers/chromium.js';
import { founderClient, startTestSociety, type TestSociety } from './helpers/society.js';

describe.skipIf(!chromiumPath)('a grant link in a real browser', () => {
  let society: TestSociety;
  let browser: Browser;

  beforeAll(async () => {
    society = await startTestSociety({ genesis: { world_seed: 'world-tests' } });
    browser = await launchChromium();
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    await society?.destroy();
  });

  it('is taken by pressing the button (the page policy lets its form post), and then is gone', async () => {
    const founder = await founderClient(society);
    const granted = await founder.signed<{ url: string }>('POST', '/api/v1/grants', { kind: 'observer', note: '' });
    const link = `${society.url}/access/grant/${granted.url.split('/').pop()}`;
    const page = await browser.newPage({ viewport: { width: 390, height: 800 } });
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') blocked.push(message.text());
    });
    await page.goto(link);
    await page.getByRole('button', { name: 'Take the grant in this browser' }).click();
    await page.waitForLoadState('load');
    expect(await page.locator('main').textContent()).toContain('The grant is yours');
    expect(blocked).toEqual([]);
    const again = await page.goto(link);
    expect(again?.status()).toBe(410);
    await page.close();
  });
});
