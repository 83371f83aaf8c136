import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium } from './helpers/chromium.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { join } from './helpers/world.js';

const WIDTHS = [390, 1280];
const TABLE_PAGES = ['/society', '/prohibitions', '/health-page', '/ledger'];

/*
 * Run in the page (a string, so that nothing the test's compiler adds reaches the browser):
 * every word of every table cell, measured as a Range. A word the layout broke across lines
 * has rectangles on two lines. Answers "cell text: word" for each.
 */
const WORDS_SPLIT_IN_CELLS = `(() => {
  const split = [];
  for (const cell of document.querySelectorAll('td, th')) {
    const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      for (const word of node.data.matchAll(/\\S+/g)) {
        const range = document.createRange();
        range.setStart(node, word.index);
        range.setEnd(node, word.index + word[0].length);
        const tops = new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top)));
        if (tops.size > 1) split.push(cell.textContent.trim().slice(0, 60) + ': ' + word[0]);
      }
    }
  }
  return split;
})()`;

/** The tops of the nav's links: one line when they are all the same. */
const NAV_LINK_TOPS = `[...document.querySelectorAll('nav a')].map((a) => Math.round(a.getBoundingClientRect().top))`;

/** Each code block: whether it scrolls sideways, takes focus, is named, and has no stripe behind its lines. */
const CODE_BLOCKS = `[...document.querySelectorAll('pre')].map((pre) => {
  pre.focus();
  const code = pre.querySelector('code');
  return {
    label: pre.getAttribute('aria-label'),
    scrolls: pre.scrollWidth > pre.clientWidth && getComputedStyle(pre).overflowX === 'auto',
    focused: document.activeElement === pre,
    stripe: code ? getComputedStyle(code).backgroundColor : 'no code',
  };
})`;

/**
 * What a visitor sees of the site's shared layout, measured by Chromium at a phone and a
 * desktop width: table cells wrap between words, never inside one (a long value scrolls
 * with its table instead); the nav is one line on a desktop; the /for-agents code blocks
 * scroll, take keyboard focus and carry a name.
 */
describe.skipIf(!chromiumPath)('the shared layout in a real browser', () => {
  let society: TestSociety;
  let browser: Browser;

  beforeAll(async () => {
    society = await startTestSociety({ genesis: { world_seed: 'world-tests' } });
    for (const handle of ['ada', 'grace', 'hedy']) await join(society, handle);
    browser = await launchChromium();
  }, 90_000);

  afterAll(async () => {
    await browser?.close();
    await society?.destroy();
  });

  async function atWidth<T>(width: number, use: (page: Page) => Promise<T>): Promise<T> {
    const context = await browser.newContext({ viewport: { width, height: 900 } });
    try {
      return await use(await context.newPage());
    } finally {
      await context.close();
    }
  }

  it('splits no word in any table cell, at 390 and 1280 px', async () => {
    const split: string[] = [];
    for (const width of WIDTHS)
      await atWidth(width, async (page) => {
        for (const path of TABLE_PAGES) {
          await page.goto(`${society.url}${path}`);
          const cells = (await page.evaluate(WORDS_SPLIT_IN_CELLS)) as string[];
          split.push(...cells.map((cell) => `${path} @${width}: ${cell}`));
        }
      });
    expect(split).toEqual([]);
  }, 60_000);

  it('keeps the nav on one line at 1280 px', async () => {
    const tops = await atWidth(1280, async (page) => {
      await page.goto(`${society.url}/`);
      return (await page.evaluate(NAV_LINK_TOPS)) as number[];
    });
    expect(tops.length).toBeGreaterThan(5);
    expect(new Set(tops).size).toBe(1);
  });

  it('lets /for-agents code blocks scroll on a phone, take focus and say what they hold, with no stripe per line', async () => {
    const blocks = await atWidth(390, async (page) => {
      await page.goto(`${society.url}/for-agents`);
      return (await page.evaluate(CODE_BLOCKS)) as { label: string | null; scrolls: boolean; focused: boolean }[];
    });
    expect(blocks.length).toBeGreaterThan(0);
    for (const block of blocks) {
      expect(block.label).toMatch(/\w/);
      expect(block).toMatchObject({ scrolls: true, focused: true, stripe: 'rgba(0, 0, 0, 0)' });
    }
  });
});
