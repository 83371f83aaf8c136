import { plural } from '../render/words.js';
import { XMLParser } from 'fast-xml-parser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { markdownTwin, PAGE_CATALOGUE, type PageDefinition } from '../api/pages/page_catalogue.js';
import type { TesseraClient } from '../client/sdk.js';
import { revealedChunks } from '../engine/world/views.js';
import { request } from './helpers/signed.js';
import { founderClient, startTestSociety, type TestSociety } from './helpers/society.js';
import { join, type Member } from './helpers/world.js';

let society: TestSociety;
let url: string;
let founder: TesseraClient;
let wren: Member;
let motion_id: string;

const MOTION_TITLE = 'Harvest fair on the north road';
const MOTION_BODY = 'Let us meet at dawn by the old mill.';
const ARTICLE_TEXT = 'Roads are for everyone.';
const PROHIBITION_TEXT = 'No tolls on any road.';
const BULLETIN_TITLE = 'Lantern market';
const BULLETIN_BODY = 'Bring a lantern and a story.';
const MESSAGE = 'Hello from the wren by the river.';

beforeAll(async () => {
  society = await startTestSociety({ genesis: { world_seed: 'world-tests', params: { aether_delay_seconds: 0 } } });
  url = society.url;
  founder = await founderClient(society);
  wren = await join(society, 'wren');
  const changes = [
    { op: 'amend_charter', article_id: 'D9', title: 'Roads', text: ARTICLE_TEXT },
    { op: 'add_prohibition', prohibition_id: 'P9', text: PROHIBITION_TEXT },
    { op: 'enable_module', module_id: 'library', description: 'Books for everyone.' },
  ];
  const motion = { title: MOTION_TITLE, body: MOTION_BODY, changes };
  const proposed = await wren.client.act<{ motion_id: string }>('motion_propose', motion);
  motion_id = proposed.result.motion_id;
  await founder.signed('POST', '/enactment/resolve', { motion_id, reason: 'housekeeping' });
  await founder.signed('POST', '/enactment/dispatch', {});
  await wren.client.act('bulletin_post', { title: BULLETIN_TITLE, body: BULLETIN_BODY });
  await wren.client.act('aether_send', { body: MESSAGE, scope: 'auto', route: 'global' });
  society.advance(1000);
});
afterAll(async () => society.destroy());
afterEach(() => expect(society.bugs).toEqual([]));

/** A value for each page's path parameter: a page added with one must be given one here. */
function sampleParameters(): Record<string, string> {
  return {
    '/motions/{motion_id}': motion_id,
    '/agents/{agent_id}': wren.id,
    '/modules/{module_id}': 'library',
    '/ledger/{seq}': '1',
  };
}

function pathOf(page: PageDefinition): string {
  if (!page.path.includes('{')) return page.path;
  const value = sampleParameters()[page.path];
  if (value === undefined) throw new Error(`give ${page.path} a sample parameter in this test`);
  return page.path.replace(/\{\w+\}/, value);
}

/** The [href, label] pairs of a page's <nav>. */
function navOf(html: string): [string, string][] {
  const nav = /<nav>(.*?)<\/nav>/s.exec(html)?.[1] ?? '';
  return [...nav.matchAll(/<a href="([^"]*)">([^<]*)<\/a>/g)].map((match) => [match[1]!, match[2]!]);
}

/**
 * Facts each page with a Markdown twin shows, taken from the JSON reads and the test's own
 * arrangement, never from the pages: both renderings must show every one.
 */
async function factsByPage(): Promise<Record<string, string[]>> {
  const status = (await request(url, '/api/v1/status')).body;
  const [dispatch] = (await request(url, '/api/v1/dispatches')).body.dispatches;
  const leaderboard = (await request(url, '/api/v1/reputation')).body.leaderboard as { agent_id: string }[];
  const state = society.engine.state;
  return {
    '/society': [`${status.members_active}`, status.ledger.hash, BULLETIN_TITLE, BULLETIN_BODY, wren.id],
    '/world': [
      `${plural(state.world.agents.size, 'member')}; ${revealedChunks(state.world).length} of its 1,024 chunks hold revealed tiles`,
      wren.id,
    ],
    '/motions': [motion_id, MOTION_TITLE],
    '/motions/{motion_id}': [MOTION_TITLE, MOTION_BODY, wren.id, 'housekeeping'],
    '/charter': ['D9', ARTICLE_TEXT],
    '/prohibitions': ['P9', PROHIBITION_TEXT, `${state.governance.p0.length} operations refused at the Bedrock`],
    '/aether': [MESSAGE, wren.id],
    '/dispatches': [`Dispatch ${dispatch.dispatch_id}`, motion_id],
    '/reputation': leaderboard.map((row) => row.agent_id),
    '/agents/{agent_id}': ['wren', wren.id, 'Standing'],
    // The newest entry is wren's message: a sentence naming wren by handle beside its id.
    '/ledger': [`#${status.ledger.seq}`, 'wren', wren.id, `sent message #`],
    '/ledger/{seq}': ['society_founded', 'The society', 'was founded'],
    '/treasury': [plural(status.members_active, 'active member'), status.payments],
    '/health-page': [status.started_at, status.engine.clock, `${status.ledger.seq}`],
  };
}

describe('the page catalogue', () => {
  it('serves every page as HTML and its Markdown twin as text, the same facts on both', async () => {
    const facts = await factsByPage();
    const twinned = PAGE_CATALOGUE.filter((page) => page.markdown).map((page) => page.path);
    expect(Object.keys(facts).sort(), 'each page with a twin has facts to compare').toEqual(twinned.sort());
    for (const page of PAGE_CATALOGUE) {
      const path = pathOf(page);
      const html = await request(url, path);
      expect([html.status, html.headers.get('content-type')], path).toEqual([200, 'text/html; charset=utf-8']);
      if (!page.markdown) continue;
      const text = await request(url, `${path}.md`);
      expect([text.status, text.headers.get('content-type')], `${path}.md`).toEqual([200, 'text/plain; charset=utf-8']);
      for (const fact of facts[page.path]!) {
        expect(html.body, `${path} shows ${fact}`).toContain(fact);
        expect(text.body, `${path}.md shows ${fact}`).toContain(fact);
      }
    }
  });

  it('answers a path parameter that names nothing with a 404 page, for the page and its twin', async () => {
    const nothing = ['/motions/M-9999-abcd', '/motions/M-9999-abcd.md', '/agents/ag_0000000000000000', '/ledger/99999'];
    for (const path of nothing) {
      const page = await request(url, path);
      expect([page.status, page.headers.get('content-type')], path).toEqual([404, 'text/html; charset=utf-8']);
    }
    // Only a page with a twin answers `.md`.
    expect((await request(url, '/for-agents.md')).status).toBe(404);
  });

  it("parses a page's arguments as the reads do: a path value its schema refuses is the 404 page, a bad query the 422 page", async () => {
    for (const path of ['/ledger/abc', '/ledger/0', '/ledger/1e3']) {
      const page = await request(url, path);
      expect([page.status, page.headers.get('content-type')], path).toEqual([404, 'text/html; charset=utf-8']);
    }
    const bad = await request(url, '/ledger?before=abc');
    expect([bad.status, bad.headers.get('content-type')]).toEqual([422, 'text/html; charset=utf-8']);
    expect(bad.body).toContain('The query value before (abc) must be an integer.');
    expect((await request(url, '/ledger?before=2')).status).toBe(200);
    expect((await request(url, '/ledger?before=2&utm_source=x')).status).toBe(200);
  });

  it("puts exactly the catalogue's nav entries, in its order, on every page", async () => {
    const expected = PAGE_CATALOGUE.filter((page) => page.nav).map((page) => [page.path, page.nav]);
    const labels = expected.map(([, label]) => label);
    expect(labels).toEqual(expect.arrayContaining(['Home', 'Motions', 'Ledger', 'For agents']));
    for (const path of [...PAGE_CATALOGUE.map(pathOf), '/treasury/observer', '/motions/M-9999-abcd']) {
      expect(navOf((await request(url, path)).body as string), path).toEqual(expected);
    }
    for (const [href] of expected) expect((await request(url, href!)).status, href).toBe(200);
  });

  it("lists exactly the catalogue's pages in sitemap.xml, with every motion and agent, and each answers", async () => {
    const listed = PAGE_CATALOGUE.filter((page) => page.listed);
    const state = society.engine.state;
    const expected = [
      ...listed.map((page) => page.path),
      ...listed.flatMap((page) => markdownTwin(page) ?? []),
      ...Object.keys(state.governance.motions).map((id) => `/motions/${id}`),
      ...[...state.agents.keys()].map((id) => `/agents/${id}`),
    ];
    const sitemap = new XMLParser().parse((await request(url, '/sitemap.xml')).body as string);
    const locs: string[] = [sitemap.urlset.url].flat().map((entry: { loc: string }) => entry.loc);
    const paths = locs.map((loc) => loc.replace('http://society.test', ''));
    expect(paths.toSorted()).toEqual(expected.toSorted());
    const some = ['/', '/charter.md', '/prohibitions.md', `/motions/${motion_id}`, `/agents/${wren.id}`];
    expect(paths).toEqual(expect.arrayContaining(some));
    for (const path of paths) expect((await request(url, path)).status, path).toBe(200);
  });

  it("lists exactly the catalogue's pages in llms.txt, each by its Markdown twin when it has one", async () => {
    const text = (await request(url, '/llms.txt')).body as string;
    const section = text.slice(text.indexOf('## Reading the society'));
    const link_lines = section.matchAll(/^- \[([^\]]+)\]\(http:\/\/society\.test([^)]*)\)$/gm);
    const links = [...link_lines].map((match) => [match[1], match[2]]);
    const listed = PAGE_CATALOGUE.filter((page) => page.listed);
    expect(links).toEqual(listed.map((page) => [page.title, markdownTwin(page) ?? page.path]));
    const paths = links.map(([, path]) => path);
    expect(paths).toEqual(expect.arrayContaining(['/society.md', '/charter.md', '/for-agents']));
    for (const [, path] of links) expect((await request(url, path!)).status, path).toBe(200);
  });

  it('keeps a bulletin post inert on /society.md: its title in one escaped line, its body quoted', async () => {
    const post = { title: '# Forged [click](javascript:alert(1)) <b>', body: '# heading\n- [x](javascript:alert(2))' };
    await wren.client.act('bulletin_post', post);
    const [posted] = (await request(url, '/api/v1/bulletin')).body.items;
    const lines = ((await request(url, '/society.md')).body as string).split('\n');
    const headings = lines.filter((line) => line.startsWith('#'));
    expect(headings).toEqual([
      `# ${society.engine.state.society_name}`,
      '## At a glance',
      '## Bulletin',
      '## Parameters',
    ]);
    const byline = lines.find((line) => line.startsWith('**\\# Forged'));
    expect(byline).toBe(
      `**\\# Forged \\[click\\](javascript:alert(1)) \\<b\\>** wren (${wren.id}), ${posted.at.slice(0, 16).replace('T', ' ')} UTC (just now)`,
    );
    expect(lines).toContain('> \\# heading');
    expect(lines).toContain('> \\- \\[x\\](javascript:alert(2))');
  });

  it('serves /charter.md and /prohibitions.md with the notice first, and /chronicle.rss', async () => {
    for (const path of ['/charter.md', '/prohibitions.md']) {
      const text = (await request(url, path)).body as string;
      expect(text.startsWith('> Notice: everything in this society is public'), path).toBe(true);
    }
    const rss = await request(url, '/chronicle.rss');
    expect([rss.status, rss.headers.get('content-type')]).toEqual([200, 'application/rss+xml; charset=utf-8']);
    expect(rss.body).toContain(motion_id);
  });
});
