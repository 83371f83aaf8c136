import type { Routes } from '../routes.js';
import type { Context } from 'koa';
import { z } from 'zod';
import { findMotion, isRefusal, motionView, rollView } from '../../engine/governance/motion_rules.js';
import { currentCharter } from '../../engine/governance/governance_state.js';
import { activeMemberCount } from '../../engine/governance/membership.js';
import { isoAt } from '../../engine/time.js';
import { revealedChunks } from '../../engine/world/views.js';
import { SITE_CSS } from '../../render/layout.js';
import { MAP_SCRIPT } from '../../render/map_script.js';
import { messagePage } from '../../render/treasury_pages.js';
import { charterPage, dispatchesPage, modulePage, motionPage, motionsPage, prohibitionsPage } from '../../render/pages/governance_pages.js';
import { agentPage, aetherPage, ledgerEntryPage, ledgerPage, reputationPage, worldPage } from '../../render/pages/public_pages.js';
import { forAgentsPage, healthPage, homePage, societyPage, type SocietyView } from '../../render/pages/society_pages.js';
import { feedPage, messageView } from '../aether_routes.js';
import { parseOrThrow, queryInt } from '../parse.js';
import { GENESIS_NOTE } from '../../engine/reads/society_status.js';
import { MotionStatusSchema } from '../../engine/reads/motions.js';
import { leaderboard, reputationOf } from '../reputation.js';
import { pageFrame, type FrameDeps } from './frame.js';
import { ownValue } from '../../engine/keyed.js';

const page_size = 50;

const MotionsPageQuery = z.object({ status: MotionStatusSchema.optional() });
const BeforeIdQuery = z.object({ before_id: queryInt.optional() });
const BeforeQuery = z.object({ before: queryInt.optional() });

export interface PageDeps extends FrameDeps {
  clock: () => number;
  started_at_ms: number;
}

export function societyView(deps: FrameDeps): SocietyView {
  const state = deps.engine.state;
  const head = deps.store.ledgerHead();
  return {
    society_name: state.society_name,
    members: activeMemberCount(state),
    agents: state.agents.size,
    founder: state.founder_agent_id,
    ledger_seq: head.seq,
    ledger_hash: head.hash,
    genesis_period: state.params.genesis_period,
    genesis_note: GENESIS_NOTE,
    payments: state.payments.mode,
    params: state.params,
    bulletin: [...state.governance.bulletin].reverse().slice(0, 20).map((item) => ({ agent_id: item.agent_id, at: isoAt(item.at_ms), title: item.title, body: item.body })),
  };
}

/** The human pages: server-rendered, read-only, the observation notice first on each. */
export function mountPageRoutes(router: Routes, deps: PageDeps): void {
  const { engine, store } = deps;
  const frame = (ctx: Context, title: string) => pageFrame(deps, ctx, title);
  const notFound = (ctx: Context, what: string) => {
    ctx.status = 404;
    ctx.body = messagePage(frame(ctx, 'Not found'), [what]);
  };

  router.get('/assets/site.css', (ctx) => {
    ctx.type = 'text/css; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = SITE_CSS;
  });
  router.get('/assets/map.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = MAP_SCRIPT;
  });

  router.get('/', (ctx) => {
    ctx.body = homePage(frame(ctx, engine.state.society_name), societyView(deps));
  });
  router.get('/society', (ctx) => {
    ctx.body = societyPage(frame(ctx, 'The society'), societyView(deps));
  });
  router.get('/for-agents', (ctx) => {
    ctx.body = forAgentsPage(frame(ctx, 'For agents'));
  });
  router.get('/health-page', (ctx) => {
    const state = engine.state;
    ctx.body = healthPage(frame(ctx, 'Health'), { status: 'ok', ledger_seq: store.ledgerHead().seq, tick: state.tick, queue_depth: engine.queue_depth, engine_clock: isoAt(state.clock_ms), started_at: isoAt(deps.started_at_ms) });
  });

  router.get('/charter', (ctx) => {
    const charter = currentCharter(engine.state.governance);
    ctx.body = charterPage(frame(ctx, 'Charter'), charter.version, charter.articles);
  });
  router.get('/prohibitions', (ctx) => {
    const governance = engine.state.governance;
    ctx.body = prohibitionsPage(frame(ctx, 'Prohibitions'), governance.prohibitions, governance.p0.length);
  });
  router.get('/modules/:module_id', (ctx) => {
    const module = ownValue(engine.state.governance.modules, ctx.params.module_id!);
    if (!module) return notFound(ctx, 'There is no module by that id.');
    ctx.body = modulePage(frame(ctx, `Module ${module.module_id}`), { ...module, enabled_at: isoAt(module.enabled_at_ms), retired_at: module.retired_at_ms === null ? null : isoAt(module.retired_at_ms) });
  });

  router.get('/motions', (ctx) => {
    const { status } = parseOrThrow(MotionsPageQuery, ctx.query, ['query']);
    const motions = Object.values(engine.state.governance.motions).filter((m) => !status || m.status === status).reverse().slice(0, 200);
    ctx.body = motionsPage(frame(ctx, 'Motions'), motions, status);
  });
  router.get('/motions/:motion_id', (ctx) => {
    const motion = findMotion(engine.state, ctx.params.motion_id!);
    if (isRefusal(motion)) return notFound(ctx, 'There is no motion by that id.');
    const view = motionView(motion, deps.clock());
    ctx.body = motionPage(frame(ctx, `Motion ${motion.motion_id}`), { ...view, roll: rollView(motion) });
  });
  router.get('/dispatches', (ctx) => {
    const { before_id } = parseOrThrow(BeforeIdQuery, ctx.query, ['query']);
    const all = engine.state.governance.dispatches.filter((d) => before_id === undefined || d.dispatch_id < before_id);
    const shown = all.slice(-page_size).reverse();
    ctx.body = dispatchesPage(frame(ctx, 'Dispatches'), shown.map((d) => ({ dispatch_id: d.dispatch_id, at: isoAt(d.at_ms), text: d.text })), all.length > page_size ? shown.at(-1)!.dispatch_id : null);
  });

  router.get('/ledger', (ctx) => {
    const { before } = parseOrThrow(BeforeQuery, ctx.query, ['query']);
    const end = Math.min(store.ledgerHead().seq, before === undefined ? Number.MAX_SAFE_INTEGER : before - 1);
    const from = Math.max(1, end - page_size + 1);
    const entries = store.ledgerPage(from, end - from + 1).map((json) => JSON.parse(json) as { seq: number; at: string; event_type: string; actor: string }).reverse();
    ctx.body = ledgerPage(frame(ctx, 'Ledger'), entries, from > 1 ? from : null);
  });
  router.get('/ledger/:seq', (ctx) => {
    const seq = Number(ctx.params.seq);
    const [json] = Number.isSafeInteger(seq) && seq >= 1 ? store.ledgerPage(seq, 1) : [];
    if (!json) return notFound(ctx, 'There is no entry at that seq.');
    ctx.body = ledgerEntryPage(frame(ctx, `Ledger entry ${seq}`), json);
  });

  router.get('/aether', (ctx) => {
    const { before_id } = parseOrThrow(BeforeIdQuery, ctx.query, ['query']);
    const messages = engine.state.aether.messages;
    const upto = before_id === undefined ? messages : messages.slice(0, Math.max(0, before_id - 1));
    const shown = feedPage(upto, undefined, page_size, deps.clock()).map(messageView);
    ctx.body = aetherPage(frame(ctx, 'The Aether'), shown, shown.length === page_size ? shown.at(-1)!.message_id : null);
  });
  router.get('/reputation', (ctx) => {
    ctx.body = reputationPage(frame(ctx, 'Reputation'), leaderboard(engine.state, 100));
  });
  router.get('/agents/:agent_id', (ctx) => {
    const state = engine.state;
    const record = state.agents.get(ctx.params.agent_id!);
    if (!record) return notFound(ctx, 'There is no agent by that id.');
    const world_agent = state.world.agents.get(record.agent_id);
    const reputation = reputationOf(state, record.agent_id);
    ctx.body = agentPage(frame(ctx, `Agent ${record.agent_id}`), {
      agent_id: record.agent_id,
      handle: record.handle,
      registered_at: isoAt(record.registered_at_ms),
      position: world_agent ? { x: world_agent.x, y: world_agent.y } : null,
      standing: reputation?.standing ?? 0,
      signals: { ...(reputation?.signals ?? {}) },
    });
  });
  router.get('/world', (ctx) => {
    ctx.body = worldPage(frame(ctx, 'The world'), { agents: engine.state.world.agents.size, revealed_chunks: revealedChunks(engine.state.world).length });
  });
}
