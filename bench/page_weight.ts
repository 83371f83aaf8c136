import { parseArgs } from 'node:util';
import type { Browser } from 'playwright-core';
import { chromiumPath, launchChromium } from '../test/helpers/chromium.js';
import { startLoadSociety } from './load_society.js';
import { median } from './measure.js';
import { replaceResultsSection } from './results_section.js';

/**
 * npm run bench:pages: what a visitor's browser fetches for /, /world and /ledger, and
 * when it first paints, with answers compressed (Chromium's own Accept-Encoding: br,
 * gzip) and without (Accept-Encoding: identity), over an emulated phone network where
 * bytes cost time. Each page is loaded in a fresh context (nothing cached) RUNS times
 * per mode; the figures are medians, each beside the uncompressed one as a ratio.
 */
const { values } = parseArgs({
  options: {
    runs: { type: 'string', default: '5' },
    members: { type: 'string', default: '200' },
    entries: { type: 'string', default: '3000' },
  },
});
const RUNS = Number(values.runs);
const PAGES = ['/', '/world', '/ledger'];

/** A slow phone link (Chrome DevTools' "Slow 4G" figures): where a page's bytes decide when it paints. */
const PHONE_NETWORK = {
  offline: false,
  latency: 150,
  downloadThroughput: (1.6 * 1024 * 1024) / 8,
  uploadThroughput: (750 * 1024) / 8,
};

type Mode = 'identity' | 'compressed';

interface Load {
  /** Every response's body as it crossed the wire (encoded) plus headers, in bytes. */
  wire_bytes: number;
  responses: number;
  /** Responses that came encoded (Content-Encoding br or gzip). */
  encoded: number;
  first_contentful_paint_ms: number;
}

async function loadPage(browser: Browser, url: string, mode: Mode): Promise<Load> {
  const context = await browser.newContext({
    viewport: { width: 390, height: 844 },
    ...(mode === 'identity' ? { extraHTTPHeaders: { 'Accept-Encoding': 'identity' } } : {}),
  });
  try {
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.emulateNetworkConditions', PHONE_NETWORK);
    const sizes: Promise<{ bytes: number; encoded: boolean }>[] = [];
    page.on('response', (response) => {
      sizes.push(
        (async () => {
          const measured = await response.request().sizes();
          const coding = (await response.allHeaders())['content-encoding'] ?? '';
          return {
            bytes: measured.responseBodySize + measured.responseHeadersSize,
            encoded: coding === 'br' || coding === 'gzip',
          };
        })(),
      );
    });
    await page.goto(url, { waitUntil: 'networkidle' });
    const first_contentful_paint_ms = await page.evaluate(
      () => performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? Number.NaN,
    );
    const measured = await Promise.all(sizes);
    return {
      wire_bytes: measured.reduce((sum, size) => sum + size.bytes, 0),
      responses: measured.length,
      encoded: measured.filter((size) => size.encoded).length,
      first_contentful_paint_ms,
    };
  } finally {
    await context.close();
  }
}

if (!chromiumPath) throw new Error("bench:pages needs Chromium (Debian's chromium package, or CHROMIUM_PATH)");
const society = await startLoadSociety(3, { members: Number(values.members), ledger_entries: Number(values.entries) });
const browser = await launchChromium();
try {
  const rows: string[] = [];
  for (const path of PAGES) {
    const loads: Record<Mode, Load[]> = { identity: [], compressed: [] };
    // Alternated, so that the machine's load at any moment weighs on both modes alike.
    for (let run = 0; run < RUNS; run++)
      for (const mode of ['identity', 'compressed'] as const)
        loads[mode].push(await loadPage(browser, society.url + path, mode));
    const bytes = (mode: Mode) => median(loads[mode].map((load) => load.wire_bytes));
    const paint = (mode: Mode) => median(loads[mode].map((load) => load.first_contentful_paint_ms));
    const compressed = loads.compressed.at(-1)!;
    rows.push(
      `| \`${path}\` | ${compressed.responses} (${compressed.encoded} encoded) | ${kib(bytes('identity'))} | ${kib(bytes('compressed'))} | ${(bytes('compressed') / bytes('identity')).toFixed(2)} | ${Math.round(paint('identity'))} ms | ${Math.round(paint('compressed'))} ms | ${(paint('compressed') / paint('identity')).toFixed(2)} |`,
    );
  }
  replaceResultsSection('## What a visitor downloads, compressed or not', [
    '## What a visitor downloads, compressed or not',
    '',
    `\`npm run bench:pages\` (${new Date().toISOString().slice(0, 10)}): each page loaded in a fresh Chromium context (390 px, nothing cached) over an emulated slow phone link (150 ms, 1.6 Mbit/s down), ${RUNS} times with answers compressed (Chromium's own \`Accept-Encoding\`) and ${RUNS} times without (\`Accept-Encoding: identity\`), alternated; a society of ${values.members} members and about ${values.entries} ledger entries. Bytes are every response of the page (bodies as sent, plus headers); the ceiling of each figure is the uncompressed one beside it, and the ratio is compressed / uncompressed (medians).`,
    '',
    '| page | responses | bytes, uncompressed | bytes, compressed | ratio | first paint, uncompressed | first paint, compressed | ratio |',
    '|---|---|---|---|---|---|---|---|',
    ...rows,
  ]);
} finally {
  await browser.close();
  await society.stop();
}
process.exit(0);

function kib(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KiB`;
}
