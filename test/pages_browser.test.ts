import { mkdirSync } from 'node:fs';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PAGE_CATALOGUE } from '../api/pages/page_catalogue.js';
import { chromiumPath, launchChromium } from './helpers/chromium.js';
import { founderClient, startTestSociety, type TestSociety } from './helpers/society.js';
import { join, type Member } from './helpers/world.js';

const SCREENSHOTS = 'test-artifacts/pages';
const WIDTHS = [1280, 390];
/** A member's long paragraph and an unbroken word: neither may widen a page. */
const LONG_WORD = 'x'.repeat(150);
const PARAGRAPH = 'We should meet by the mill at dawn and talk about the roads. '.repeat(20);

/**
 * Every page a visitor can open, at a desktop and a phone width, in Chromium: none wider
 * than the screen, none with a console error or a failed request, none running script a
 * member wrote, each under a policy forbidding inline script; each screenshot saved under
 * test-artifacts/pages/. The pages come from the page catalogue, so a page added later is
 * covered without touching this test.
 */
describe.skipIf(!chromiumPath)('every page in a real browser', () => {
  let society: TestSociety;
  let browser: Browser;
  let wren: Member;
  let motion_id: string;

  beforeAll(async () => {
    society = await startTestSociety({ genesis: { world_seed: 'world-tests', params: { aether_delay_seconds: 0 } } });
    wren = await join(society, 'wren');
    const founder = await founderClient(society);
    const changes = [{ op: 'enable_module', module_id: 'library', description: `Books. ${LONG_WORD}` }];
    motion_id = (
      await wren.client.act<{ motion_id: string }>('motion_propose', {
        title: `A title ${LONG_WORD}`,
        body: `${PARAGRAPH}\n\n${LONG_WORD}`,
        changes,
      })
    ).result.motion_id;
    await founder.signed('POST', '/enactment/resolve', { motion_id, reason: `housekeeping ${LONG_WORD}` });
    await founder.signed('POST', '/enactment/dispatch', {});
    await wren.client.act('bulletin_post', { title: `Fair ${LONG_WORD}`, body: PARAGRAPH });
    await wren.client.act('aether_send', {
      body: `<script>window.pwned = 1</script> ${PARAGRAPH.slice(0, 600)} ${LONG_WORD}`,
      scope: 'auto',
      route: 'global',
    });
    society.advance(1000);
    browser = await launchChromium();
    mkdirSync(SCREENSHOTS, { recursive: true });
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await society?.destroy();
  });

  const sample: Record<string, () => string> = {
    '/motions/{motion_id}': () => motion_id,
    '/agents/{agent_id}': () => wren.id,
    '/modules/{module_id}': () => 'library',
    '/ledger/{seq}': () => '2',
  };
  /** The 422 page, a page's own 404 and the 404 page of a path nothing serves: pages too, held to the same. */
  const ERROR_PAGES = new Set(['/ledger?type=Not%20a%20type', '/motions/M-9999-abcd', '/no-such-page']);
  const paths = () => [
    ...PAGE_CATALOGUE.map((page) => {
      const param = /\{\w+\}/.exec(page.path)?.[0];
      if (!param) return page.path;
      const value = sample[page.path];
      if (!value) throw new Error(`give ${page.path} a sample value in this test`);
      return page.path.replace(param, value());
    }),
    '/treasury/observer',
    ...ERROR_PAGES,
  ];

  it('fits every page at 1280 and 390 px, with no console error, no failed request and no member script run', async () => {
    const problems: string[] = [];
    for (const width of WIDTHS) {
      const context = await browser.newContext({ viewport: { width, height: 900 } });
      const page = await context.newPage();
      page.on('console', (message) => {
        if (message.type() !== 'error') return;
        // The error pages' own status, which the browser notes: the 404 and 422 pages are what is asked for there.
        const own_status =
          /status of (404|422)/.test(message.text()) &&
          ERROR_PAGES.has(new URL(page.url()).pathname + new URL(page.url()).search);
        if (!own_status) problems.push(`${page.url()} @${width}: console: ${message.text()}`);
      });
      page.on('requestfailed', (request) => {
        // Going on to the next page cancels what the last one still had in flight (its favicon, say): not a failure of it.
        const reason = request.failure()?.errorText ?? '';
        if (reason !== 'net::ERR_ABORTED') problems.push(`${request.url()} @${width}: failed (${reason})`);
      });
      for (const path of paths()) {
        const response = await page.goto(`${society.url}${path}`);
        const csp = response!.headers()['content-security-policy'] ?? '';
        expect(csp, path).toMatch(/script-src 'self'(;|$)/);
        expect(csp, path).not.toContain('unsafe-inline');
        await page.waitForLoadState('load');
        const { scroll, inner, pwned } = await page.evaluate(() => ({
          scroll: (globalThis as any).document.documentElement.scrollWidth as number,
          inner: (globalThis as any).innerWidth as number,
          pwned: (globalThis as any).pwned as unknown,
        }));
        if (scroll > inner) problems.push(`${path} @${width}: ${scroll} px wide`);
        expect(pwned, path).toBeUndefined();
        const name = path.replace(/[^a-z0-9]+/gi, '_').replace(/^_|_$/g, '') || 'home';
        await page.screenshot({ path: `${SCREENSHOTS}/${name}-${width}.png`, fullPage: true });
      }
      await context.close();
    }
    expect(problems).toEqual([]);
  }, 120_000);
});
