import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { request } from './helpers/signed.js';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** The links of a page, as written in its HTML. */
function hrefsOf(html: string): string[] {
  return [...html.matchAll(/<a href="([^"]*)"/g)].map((match) => match[1]!);
}

/** Where the page's own content is: the nav is on every page, the ways on must be in the content too. */
function mainOf(html: string): string {
  return /<main>([\s\S]*)<\/main>/.exec(html)![1]!;
}

/**
 * A person who follows a dead link gets a page with ways on, not JSON; an agent (asking
 * for JSON, or for anything) keeps the refusal it knows. The page's own 404 and 422 pages
 * offer ways on too, the 422's first the same page without its query.
 */
describe('an unknown path', () => {
  let society: TestSociety;

  beforeAll(async () => {
    society = await startTestSociety({ genesis: { world_seed: 'world-tests' } });
  });
  afterAll(async () => society.destroy());
  afterEach(() => expect(society.bugs).toEqual([]));

  it('answers a browser with an HTML 404 page that has ways on', async () => {
    const page = await request(society.url, '/no-such-page', { headers: { accept: BROWSER_ACCEPT } });
    expect(page.status).toBe(404);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = page.body as string;
    expect(html).toContain('There is no page at /no-such-page.');
    expect(html).toMatch(/<nav><a href="\/">Home<\/a>/);
    expect(hrefsOf(mainOf(html))).toEqual(expect.arrayContaining(['/', '/ledger']));
  });

  it('escapes the path it names', async () => {
    const page = await request(society.url, `/${encodeURIComponent('<b>x</b>')}`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(404);
    expect(page.body).not.toContain('<b>x</b>');
  });

  it('answers JSON to a client that does not prefer HTML', async () => {
    for (const accept of [undefined, 'application/json', '*/*', 'application/json, text/html;q=0.5']) {
      const answer = await request(society.url, '/no-such-page', accept ? { headers: { accept } } : {});
      expect([answer.status, answer.headers.get('content-type')], accept).toEqual([
        404,
        'application/json; charset=utf-8',
      ]);
      expect((answer.body as { error: string }).error, accept).toBe('NOT_FOUND');
    }
  });

  it('keeps a documented route’s own 404 in JSON, and a POST nothing serves', async () => {
    const agent = await request(society.url, '/api/v1/motions/M-9999-abcd', {
      headers: { accept: BROWSER_ACCEPT },
    });
    expect([agent.status, agent.headers.get('content-type')]).toEqual([404, 'application/json; charset=utf-8']);
    const post = await request(society.url, '/no-such-page', { method: 'POST', headers: { accept: BROWSER_ACCEPT } });
    expect(post.headers.get('content-type')).toBe('application/json; charset=utf-8');
  });

  it("gives a page's own 404 ways on, and the 422 page its query-less page as a link", async () => {
    const missing = await request(society.url, '/motions/M-9999-abcd');
    expect(missing.status).toBe(404);
    expect(hrefsOf(mainOf(missing.body as string))).toEqual(expect.arrayContaining(['/', '/ledger']));
    const bad = await request(society.url, '/world?z=abc');
    expect(bad.status).toBe(422);
    expect(mainOf(bad.body as string)).toContain('<a href="/world">Without the query: /world</a>');
  });
});
