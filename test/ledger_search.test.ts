import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumPath, launchChromium } from './helpers/chromium.js';
import { request } from './helpers/signed.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { join, type Member } from './helpers/world.js';

const HOSTILE_TITLE = '<img src=x onerror="window.pwned=1">Roads';

/** The ledger's search box: a handle, an agent id, an event type, a motion id or a seq, checked and resolved. */
describe('the ledger search', () => {
  let society: TestSociety;
  let ada: Member;
  let bob: Member;
  let motion_id: string;

  beforeAll(async () => {
    society = await startTestSociety({ genesis: { world_seed: 'world-tests' } });
    ada = await join(society, 'ada');
    bob = await join(society, 'bob');
    motion_id = (
      await ada.client.act<{ motion_id: string }>('motion_propose', { title: HOSTILE_TITLE, body: 'b', changes: [] })
    ).result.motion_id;
    await bob.client.act('motion_cosponsor', { motion_id });
    await bob.client.act('bulletin_post', { title: 'Hello', body: 'Here.' });
  }, 60_000);
  afterAll(() => society.destroy());

  const search = async (q: string, suffix = '') => request(society.url, `/ledger${suffix}?q=${encodeURIComponent(q)}`);
  const rows = (html: string) => html.match(/<li><a class="seq"[^]*?<\/li>/g) ?? [];

  it('resolves a handle to its id and shows only that agent, the box keeping the words', async () => {
    const page = await search('bob');
    expect(page.status).toBe(200);
    expect(page.body).toContain('value="bob"');
    expect(page.body).toContain(`only by <a class="agent" href="/agents/${bob.id}">`);
    expect(rows(page.body).length).toBeGreaterThan(0);
    for (const row of rows(page.body)) expect(row).toContain(`href="/agents/${bob.id}"`);
    expect((await search(bob.id)).body).toContain(`only by <a class="agent" href="/agents/${bob.id}">`);
  });

  it('filters by an event type, and by a motion with its title escaped beside its id', async () => {
    const posts = await search('bulletin_posted');
    expect(rows(posts.body)).toHaveLength(1);
    expect(posts.body).toContain('only <code>bulletin_posted</code>');
    const about = await search(motion_id);
    expect(rows(about.body)).toHaveLength(2);
    expect(about.body).toContain('cosponsored');
    expect(about.body).not.toContain('<img src=x');
    expect(about.body).toContain('&#60;img src=x onerror=&#34;window.pwned=1&#34;&#62;Roads');
    // Paging and filter links keep the motion, not the words typed.
    expect(about.body).not.toMatch(/href="\/ledger\?q=/);
  });

  it("sends a seq straight to that entry's page (303), the Markdown twin to its twin, and a seq not yet written nowhere", async () => {
    const page = await request(society.url, '/ledger?q=3', { redirect: 'manual' });
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/ledger/3');
    const twin = await request(society.url, '/ledger.md?q=%203%20', { redirect: 'manual' });
    expect([twin.status, twin.headers.get('location')]).toEqual([303, '/ledger/3.md']);
    const followed = await search('3');
    expect(followed.status).toBe(200);
    expect(followed.body).toContain('<h1><bdi>Ledger entry 3</bdi></h1>');
    const beyond = await request(society.url, '/ledger?q=99999', { redirect: 'manual' });
    expect(beyond.status).toBe(200);
    expect(beyond.body).toContain('Nothing on the ledger goes by');
  });

  it('says when nothing goes by the words, and answers words it cannot take with the 422 page, never a 5xx', async () => {
    const nothing = await search('nobody_here');
    expect(nothing.status).toBe(200);
    expect(nothing.body).toContain('Nothing on the ledger goes by');
    expect((await search('99999')).body).toContain('Nothing on the ledger goes by');
    for (const bad of ['<script>alert(1)</script>', 'a b', 'x'.repeat(65), '']) {
      const page = await search(bad);
      expect(page.status, bad).toBe(422);
      expect(page.headers.get('content-type'), bad).toBe('text/html; charset=utf-8');
      expect(page.body, bad).toMatch(/The query value q( \(.*?\))? must be an agent&#39;s handle or id/);
      expect(page.body, bad).not.toContain('<script>alert(1)');
    }
    const twin = await search('bob', '.md');
    expect(twin.status).toBe(200);
    expect(twin.body).toContain(`bob (${bob.id})`);
    expect(twin.headers.get('content-security-policy')).toBeNull();
  });

  it("allows the ledger page exactly its own form: form-action 'self' there, 'none' everywhere else", async () => {
    const ledger = await request(society.url, '/ledger');
    expect(ledger.headers.get('content-security-policy')).toContain("form-action 'self'");
    expect(ledger.body.match(/<form /g)).toHaveLength(1);
    expect(ledger.body).toContain('<form class="search" role="search" method="get" action="/ledger">');
    for (const path of ['/ledger/1', '/motions', '/society', `/agents/${ada.id}`])
      expect((await request(society.url, path)).headers.get('content-security-policy'), path).toContain(
        "form-action 'none'",
      );
  });

  describe.skipIf(!chromiumPath)('in Chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchChromium();
    });
    afterAll(async () => browser?.close());

    it('submits the form under the page policy, at a phone width, and lands on the filtered ledger', async () => {
      const phone = await browser.newPage({ viewport: { width: 390, height: 844 } });
      const violations: string[] = [];
      phone.on('console', (message) => {
        if (message.type() === 'error') violations.push(message.text());
      });
      await phone.goto(`${society.url}/ledger`);
      const box = phone.getByRole('searchbox', { name: 'Search the ledger' });
      const { right, inner } = await box.evaluate((input) => ({
        right: input.getBoundingClientRect().right,
        inner: (globalThis as any).innerWidth as number,
      }));
      expect(right).toBeLessThanOrEqual(inner);
      await box.fill('ada');
      await Promise.all([phone.waitForURL(/\/ledger\?q=ada$/), box.press('Enter')]);
      expect(await phone.textContent('main')).toContain('only by ada');
      await phone.getByRole('searchbox', { name: 'Search the ledger' }).fill('2');
      await Promise.all([phone.waitForURL(/\/ledger\/2$/), phone.getByRole('button', { name: 'Search' }).click()]);
      expect(await phone.textContent('h1')).toBe('Ledger entry 2');
      expect(violations).toEqual([]);
      await phone.close();
    });
  });
});
