import type { Routes } from './routes.js';
import type { Engine } from '../engine/engine.js';
import { currentCharter } from '../engine/governance/governance_state.js';
import { isoAt } from '../engine/time.js';
import { charterMarkdown, prohibitionsMarkdown } from '../render/law_markdown.js';
import { chronicleRss } from '../render/chronicle_rss.js';

interface GovernanceDeps {
  engine: Engine;
  /** This service's public address: the feed links there, never to whatever Host a request names. */
  public_url: string;
}

/**
 * The rendered reads of governance and law (the JSON ones are in the read catalogue,
 * engine/reads/): the charter and prohibitions as Markdown, the chronicle as RSS.
 */
export function mountGovernanceRoutes(router: Routes, { engine, public_url }: GovernanceDeps): void {
  const governance = () => engine.state.governance;

  router.get('/chronicle.rss', (ctx) => {
    ctx.type = 'application/rss+xml; charset=utf-8';
    ctx.body = chronicleRss(public_url, engine.state.society_name, governance().chronicle.slice(-50).reverse());
  });

  router.get('/charter.md', (ctx) => {
    const charter = currentCharter(governance());
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = charterMarkdown(charter, isoAt(charter.adopted_at_ms));
  });

  router.get('/prohibitions.md', (ctx) => {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = prohibitionsMarkdown(governance().prohibitions);
  });
}
