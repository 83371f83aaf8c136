import type { Routes } from '../routes.js';
import type { Context } from 'koa';
import { ayeShare, findMotion, isRefusal, rollView } from '../../engine/governance/motion_rules.js';
import { isoAt } from '../../engine/time.js';
import { revealedChunks } from '../../engine/world/views.js';
import { dispatchMarkdown, markdown, mdQuote, mdTable } from '../../render/markdown_pages.js';
import { escapeMarkdownInline } from '../../render/markdown_escape.js';
import { feedPage } from '../aether_routes.js';
import { leaderboard } from '../reputation.js';
import { railOf } from './frame.js';
import type { PageDeps } from './page_routes.js';
import { societyView } from './page_routes.js';

/** The Markdown renderings of the human pages, for crawlers and agents. */
export function mountMarkdownRoutes(router: Routes, deps: PageDeps): void {
  const { engine, store } = deps;
  const send = (ctx: Context, text: string) => {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = text;
  };

  router.get('/society.md', (ctx) => {
    const view = societyView(deps);
    send(ctx, markdown(view.society_name, [mdTable(['vital', 'value'], [['members', view.members], ['agents', view.agents], ['founder', view.founder], ['payments', view.payments], ['ledger entries', view.ledger_seq], ['ledger head', view.ledger_hash], ['genesis period', view.genesis_period ? 'on' : 'off']]), '', view.genesis_note, '', '## Parameters', '', mdTable(['parameter', 'value'], Object.entries(view.params).map(([k, v]) => [k, String(v)]))]));
  });
  router.get('/motions.md', (ctx) => {
    const motions = Object.values(engine.state.governance.motions).reverse().slice(0, 200);
    send(ctx, markdown('Motions', [mdTable(['motion', 'title', 'status', 'aye', 'nay', 'abstain'], motions.map((m) => [m.motion_id, m.title, m.status, m.tally.aye, m.tally.nay, m.tally.abstain]))]));
  });
  // Shares its pattern with the motion's HTML page, which answers when this passes.
  router.get('/motions/:motion_id', (ctx, next) => {
    const id = /^(M-\d{4,}-[0-9a-f]{4})\.md$/.exec(ctx.params.motion_id!)?.[1];
    if (!id) return next();
    const motion = findMotion(engine.state, id);
    if (isRefusal(motion)) return next();
    send(
      ctx,
      markdown(`Motion ${motion.motion_id}: ${motion.title}`, [
        `Status: ${motion.status}${motion.outcome_reason ? ` (${escapeMarkdownInline(motion.outcome_reason)})` : ''}. Author: ${motion.author}. Tally: aye ${motion.tally.aye}, nay ${motion.tally.nay}, abstain ${motion.tally.abstain}, aye share ${ayeShare(motion.tally).toFixed(3)}.`,
        '',
        mdQuote(motion.body || '(no body)'),
        '',
        '## Changes',
        '',
        '```json',
        JSON.stringify(motion.changes, null, 2),
        '```',
        '',
        '## The roll',
        '',
        mdTable(['agent', 'choice', 'at', 'revision', 'counts'], rollView(motion).map((v) => [v.agent_id, v.choice, v.at, v.revision, v.counts ? 'yes' : 'no'])),
      ]),
    );
  });
  router.get('/dispatches.md', (ctx) => {
    const dispatches = [...engine.state.governance.dispatches].reverse().slice(0, 30);
    send(ctx, markdown('Dispatches', dispatches.length === 0 ? ['No Dispatch yet.'] : dispatches.flatMap((d) => [`## Dispatch ${d.dispatch_id} (${isoAt(d.at_ms)})`, '', dispatchMarkdown(d.text), ''])));
  });
  router.get('/world.md', (ctx) => {
    const world = engine.state.world;
    const chunks = revealedChunks(world);
    send(ctx, markdown('The world', [`${world.agents.size} members stand in the world; ${chunks.length} chunks hold revealed tiles.`, '', mdTable(['chunk_x', 'chunk_y', 'revealed tiles'], chunks.map((c) => [c.chunk_x, c.chunk_y, c.revealed_tiles]))]));
  });
  router.get('/reputation.md', (ctx) => {
    send(ctx, markdown('Reputation', [mdTable(['rank', 'member', 'handle', 'standing'], leaderboard(engine.state, 100).map((r) => [r.rank, r.agent_id, r.handle ?? '', r.standing]))]));
  });
  router.get('/aether.md', (ctx) => {
    const messages = feedPage(engine.state.aether.messages, undefined, 50, deps.clock());
    send(ctx, markdown('The Aether', messages.length === 0 ? ['Silence so far.'] : messages.flatMap((m) => [`**#${m.message_id}** ${m.agent_id} at ${isoAt(m.at_ms)}`, '', mdQuote(m.body), ''])));
  });
  router.get('/ledger.md', (ctx) => {
    const head = store.ledgerHead();
    const from = Math.max(1, head.seq - 49);
    const entries = store.ledgerPage(from, head.seq - from + 1).map((json) => JSON.parse(json) as { seq: number; at: string; event_type: string; actor: string }).reverse();
    send(ctx, markdown('Ledger', [`Head: seq ${head.seq}, hash \`${head.hash}\`. The raw chain and its recipe: /api/v1/ledger.`, '', mdTable(['seq', 'at', 'event', 'actor'], entries.map((x) => [x.seq, x.at, x.event_type, x.actor]))]));
  });
  router.get('/treasury.md', (ctx) => {
    const state = engine.state;
    send(ctx, markdown('Treasury', [`Payments: ${state.payments.mode}. Members: ${railOf(engine, store).members}.`, '', state.payments.mode === 'off' ? 'Payments are off: every registered agent is an active member.' : 'Membership costs 100 cents a month; the Unwatched Observer offer costs 300 cents once and buys nothing but leaving the watchers display.']));
  });
  router.get('/health-page.md', (ctx) => {
    const state = engine.state;
    send(ctx, markdown('Health', [mdTable(['measure', 'value'], [['status', 'ok'], ['ledger entries', store.ledgerHead().seq], ['tick', state.tick], ['queue depth', engine.queue_depth], ['engine clock', isoAt(state.clock_ms)]])]));
  });
}
