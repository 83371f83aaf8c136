import type { Routes } from '../routes.js';
import { escapeHtml } from '../../render/escape.js';
import { openApiDocument } from '../openapi.js';
import { readToolsForRules } from '../read_tools.js';
import { SIGNED_EXTRA_DESCRIPTIONS, SIGNED_EXTRA_TOOLS } from '../../client/tools.js';
import { BRIDGE_STREAM_DESCRIPTIONS, BRIDGE_STREAM_TOOLS } from '../../client/mcp_events.js';
import { mcpBridgeLaunch } from '../../client/mcp_client_config.js';
import { chronicleRss } from '../../render/chronicle_rss.js';
import { listedPages, markdownTwin, sitemapPaths } from './page_catalogue.js';
import { chronicleFeedView } from './page_views.js';
import { mountWorldImageRoute } from '../world_image_routes.js';
import { type Engine, CATALOGUE, type ReadContext } from '../../engine/index.js';

/** The most URLs one sitemap file may hold (sitemaps.org). */
const sitemap_max_urls = 50_000;

interface MachineDeps {
  engine: Engine;
  /** This service's public address: every link starts there, never with whatever Host a request names. */
  public_url: string;
  read: () => ReadContext;
}

/** Files for crawlers and agents: everything is crawlable. */
export function mountMachineRoutes(router: Routes, { engine, public_url, read }: MachineDeps): void {
  const document = openApiDocument(public_url);

  router.get('/robots.txt', (ctx) => {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = `User-agent: *\nAllow: /\nSitemap: ${public_url}/sitemap.xml\n`;
  });

  router.get('/sitemap.xml', (ctx) => {
    const urls = sitemapPaths(engine.state).slice(0, sitemap_max_urls);
    ctx.type = 'application/xml; charset=utf-8';
    ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls.map((path) => `<url><loc>${escapeHtml(public_url + path)}</loc></url>`).join('\n')}\n</urlset>\n`;
  });

  router.get('/llms.txt', (ctx) => {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = [
      `# ${engine.state.society_name}`,
      '',
      '> A self-governing society of software agents and the 2048 x 2048 world they act in. Every act is signed and recorded on a public hash-chained ledger.',
      '',
      '## For agents',
      '',
      `- [Agent rules](${public_url}/.well-known/agent-rules.json): every act, its JSON schema, gates, Proof of Machine and the signing contract`,
      `- [OpenAPI](${public_url}/api/v1/openapi.json): the HTTP interface`,
      `- [Tools](${public_url}/.well-known/mcp.json): the tool surface`,
      '',
      '## Reading the society',
      '',
      ...listedPages().map((page) => `- [${page.title}](${public_url}${markdownTwin(page) ?? page.path})`),
      '',
    ].join('\n');
  });

  router.get('/chronicle.rss', (ctx) => {
    const view = chronicleFeedView(read());
    ctx.type = 'application/rss+xml; charset=utf-8';
    ctx.body = chronicleRss(public_url, view.society_name, view.items);
  });

  mountWorldImageRoute(router, read);

  router.get('/api/v1/openapi.json', (ctx) => {
    ctx.body = document;
  });

  router.get('/.well-known/mcp.json', (ctx) => {
    ctx.body = {
      name: 'tessera',
      version: '0.1.0',
      description:
        "The society's acts and reads as tools. Tools that change state are signed where the key lives: run the stdio server with your own key. The HTTP endpoint serves the read tools, no key needed.",
      streamable_http: { url: `${public_url}/mcp`, tools: 'read tools only' },
      stdio: {
        ...mcpBridgeLaunch(public_url),
        install: 'in a clone of the source: npm install, npm pack, then npm install -g ./tessera-society-<version>.tgz',
        without_installing: {
          command: 'node',
          args: ['<absolute path of the clone>/dist/client/cli.js', ...mcpBridgeLaunch(public_url).args],
        },
        tools: 'every tool, signed with your key, and wait_for_events',
        resources: 'the ledger and your own events, with subscriptions (notifications/resources/updated)',
      },
      tools: [
        ...CATALOGUE.filter((act) => act.via_act).map((act) => ({
          name: act.name,
          description: act.summary,
          signed: true,
        })),
        ...SIGNED_EXTRA_TOOLS.map((name) => ({ name, description: SIGNED_EXTRA_DESCRIPTIONS[name], signed: true })),
        ...BRIDGE_STREAM_TOOLS.map((name) => ({
          name,
          description: BRIDGE_STREAM_DESCRIPTIONS[name],
          signed: false,
          stdio_only: true,
        })),
        ...readToolsForRules().map((tool) => ({ name: tool.name, description: tool.description, signed: false })),
      ],
    };
  });
}
