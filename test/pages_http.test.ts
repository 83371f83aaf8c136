import { Validator } from '@seriousme/openapi-schema-validator';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { request } from './helpers/signed.js';
import { join, type Member } from './helpers/world.js';

let society: TestSociety;
let url: string;
let member: Member;
let motion_id: string;
/** HTML's text with its character references read: the page escapes both by number and by name. */
const textOf = (html: string) =>
  html
    .replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)))
    .replace(/&(lt|gt|quot|amp);/g, (_, name: string) => ({ lt: '<', gt: '>', quot: '"', amp: '&' })[name]!);
const HOSTILE = '<script>window.pwned=1</script><img src=x onerror="window.pwned=2">';

beforeAll(async () => {
  society = await startTestSociety({ genesis: { world_seed: 'world-tests' } });
  url = society.url;
  member = await join(society, 'mallory');
  motion_id = (
    await member.client.act<any>('motion_propose', {
      title: HOSTILE,
      body: HOSTILE,
      changes: [{ op: 'enable_module', module_id: 'library', description: HOSTILE }],
    })
  ).result.motion_id;
  await member.client.act('bulletin_post', { title: HOSTILE, body: HOSTILE });
  await member.client.act('aether_send', { body: HOSTILE, scope: 'auto', route: 'global' });
});
afterAll(async () => society.destroy());
afterEach(() => expect(society.bugs).toEqual([]));

const PAGES = [
  '/',
  '/society',
  '/charter',
  '/prohibitions',
  '/for-agents',
  '/motions',
  '/motions?status=draft',
  '/ledger',
  '/ledger/1',
  '/treasury',
  '/world',
  '/dispatches',
  '/aether',
  '/reputation',
  '/health-page',
];
const MARKDOWN = [
  '/society.md',
  '/motions.md',
  '/dispatches.md',
  '/world.md',
  '/reputation.md',
  '/aether.md',
  '/ledger.md',
  '/treasury.md',
  '/health-page.md',
];

describe('human pages', () => {
  it('answers every page 200, the notice first, with a charset and a CSP forbidding inline script and every form but the ledger search', async () => {
    for (const path of [...PAGES, `/motions/${motion_id}`, `/agents/${member.id}`]) {
      const page = await request(url, path);
      expect(page.status, path).toBe(200);
      expect(page.headers.get('content-type'), path).toBe('text/html; charset=utf-8');
      expect(page.headers.get('content-security-policy'), path).toContain("script-src 'self'");
      expect(page.body.indexOf('Notice: everything in this society is public'), path).toBeLessThan(
        page.body.indexOf('<h1>'),
      );
      expect(page.body, path).toContain('ledger entries');
      // The ledger's search box is the one form of the catalogue's pages, and its page the one policy allowing it.
      const searchable = path === '/ledger';
      expect(page.body.includes('<form'), path).toBe(searchable);
      expect(page.headers.get('content-security-policy'), path).toContain(
        searchable ? "form-action 'self'" : "form-action 'none'",
      );
    }
  });

  it('answers a bad query value with a page saying which and why, 422, in the form asked for, never JSON', async () => {
    const page = await request(url, '/ledger?before=abc');
    expect(page.status).toBe(422);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.body).toContain('The query value before (abc) must be an integer.');
    expect(page.body.indexOf('Notice: everything in this society is public')).toBeLessThan(page.body.indexOf('<h1>'));
    const hostile = await request(url, `/ledger?before=${encodeURIComponent('<script>alert(1)</script>')}`);
    expect(hostile.status).toBe(422);
    expect(hostile.body).not.toContain('<script>alert(1)');
    const twin = await request(url, '/ledger.md?before=-1');
    expect(twin.status).toBe(422);
    expect(twin.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(twin.body).toMatch(/The query value before( \(-1\))? must be at least 0\./);
  });

  it('has a favicon, linked from every page and where browsers ask for one by default', async () => {
    for (const path of ['/favicon.svg', '/favicon.ico']) {
      const icon = await request(url, path);
      expect(icon.status, path).toBe(200);
      expect(icon.headers.get('content-type'), path).toBe('image/svg+xml');
      expect(icon.body, path).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    }
    expect((await request(url, '/')).body).toContain('<link rel="icon" href="/favicon.svg" type="image/svg+xml">');
  });

  it('renders what members write inert: motion titles, bodies, bulletin posts and Aether messages', async () => {
    for (const path of ['/motions', `/motions/${motion_id}`, '/society', '/aether']) {
      const page = await request(url, path);
      expect(page.body, path).not.toContain('<script>window');
      expect(page.body, path).not.toContain('<img src=x');
      expect(page.body, path).toContain('&#60;script&#62;');
    }
  });

  it('answers an unknown motion, agent or module with a 404 page, and a retired module with its archive', async () => {
    for (const path of ['/motions/M-9999-abcd', '/agents/ag_0000000000000000', '/modules/nothing'])
      expect((await request(url, path)).status, path).toBe(404);
    const state = society.engine.state.governance;
    state.modules.old = {
      module_id: 'old',
      description: 'an old module',
      status: 'retired',
      enabled_at_ms: 0,
      retired_at_ms: 1000,
      by_motion: null,
    };
    const archive = await request(url, '/modules/old');
    expect([archive.status, archive.body.includes('Archive')]).toEqual([200, true]);
    delete state.modules.old;
  });
});

describe('Markdown renderings', () => {
  it('serves each as text/plain with the notice first', async () => {
    for (const path of [...MARKDOWN, `/motions/${motion_id}.md`]) {
      const page = await request(url, path);
      expect(page.status, path).toBe(200);
      expect(page.headers.get('content-type'), path).toBe('text/plain; charset=utf-8');
      expect(String(page.body).startsWith('> Notice: everything in this society is public'), path).toBe(true);
    }
  });
});

describe('machine files', () => {
  it('serves robots.txt, a sitemap and an RSS feed that parse, and llms.txt', async () => {
    expect((await request(url, '/robots.txt')).body).toContain('Sitemap: http://society.test/sitemap.xml');
    const sitemap = (await request(url, '/sitemap.xml')).body as string;
    expect(XMLValidator.validate(sitemap)).toBe(true);
    const locs = new XMLParser().parse(sitemap).urlset.url.map((u: { loc: string }) => u.loc);
    expect(locs).toContain(`http://society.test/motions/${motion_id}`);
    const rss = (await request(url, '/chronicle.rss')).body as string;
    expect(XMLValidator.validate(rss)).toBe(true);
    expect(new XMLParser().parse(rss).rss.channel.title).toContain('chronicle');
    expect((await request(url, '/llms.txt')).body).toContain('/.well-known/agent-rules.json');
  });

  it('serves an OpenAPI 3.1 document, version 0.1.0, that validates, and the tool descriptor', async () => {
    const document = (await request(url, '/api/v1/openapi.json')).body;
    expect([document.openapi, document.info.version]).toEqual(['3.1.0', '0.1.0']);
    const result = await new Validator().validate(document);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(Object.keys(document['paths']['/api/v1/act'].post['x-acts'])).toContain('world_move');
    expect(Object.keys(document['paths']['/api/v1/act'].post.responses['200'].headers)).toEqual([
      'X-Next-Nonce',
      'X-Next-Nonce-Expires-At',
      'Idempotent-Replayed',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
    ]);
    // A read carries no next nonce, but says where the client stands under the read limit.
    expect(Object.keys(document['paths']['/api/v1/status'].get.responses['200'].headers)).toEqual([
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
    ]);
    expect((await request(url, '/.well-known/agent-rules.json')).body.signing.next_nonce).toContain('X-Next-Nonce');
    const mcp = (await request(url, '/.well-known/mcp.json')).body;
    expect(mcp.tools.map((t: { name: string }) => t.name)).toEqual(
      expect.arrayContaining(['world_move', 'vote_cast', 'aether_send']),
    );
  });

  it("shows on /for-agents the MCP client configuration for this society's URL, as the tool descriptor starts the bridge", async () => {
    const html = await (await fetch(`${url}/for-agents`)).text();
    expect(textOf(html)).not.toContain('<base url>');
    expect(textOf(html)).toContain('tessera-agent verify http://society.test');
    const code = /aria-label="MCP client configuration"[^>]*><code>([^<]*)<\/code>/.exec(html)?.[1];
    const config = JSON.parse(textOf(code!)) as { mcpServers: { tessera: { command: string; args: string[] } } };
    // The society's public URL (test/helpers/society.ts), not the address the test reaches it at.
    expect(config.mcpServers.tessera.args.at(-1)).toBe('http://society.test');
    const { stdio } = (await request(url, '/.well-known/mcp.json')).body;
    expect(config.mcpServers.tessera).toEqual({ command: stdio.command, args: stdio.args });
  });

  it('marks immutable reads for caching: superseded charters and full ledger pages', async () => {
    expect((await request(url, '/api/v1/ledger?from=1&limit=2')).headers.get('cache-control')).toContain('immutable');
    expect((await request(url, '/api/v1/ledger?from=1&limit=1000')).headers.get('cache-control')).toBeNull();
  });
});

describe('the read rate limiter', () => {
  let limited: TestSociety;
  beforeAll(async () => {
    limited = await startTestSociety({
      genesis: { world_seed: 'world-tests' },
      config: { read_limits: { reads_per_second: 1, burst_reads: 3 } },
    });
  });
  afterAll(async () => limited.destroy());

  it('answers 429 with Retry-After past the burst, refills with time, and never limits /healthz', async () => {
    for (let i = 0; i < 3; i++) expect((await request(limited.url, '/api/v1/status')).status).toBe(200);
    const refused = await request(limited.url, '/api/v1/status');
    expect([refused.status, refused.body.error, refused.headers.get('retry-after')]).toEqual([
      429,
      'RATE_LIMITED',
      '1',
    ]);
    expect((await request(limited.url, '/healthz')).status).toBe(200);
    limited.advance(1000);
    expect((await request(limited.url, '/api/v1/status')).status).toBe(200);
  });
});
