import type { z } from 'zod';
import type { ChronicleRssItem } from '../../render/chronicle_rss.js';
import type {
  AetherView,
  AgentView,
  LedgerEntryView,
  LedgerView,
  ReputationView,
  WorldView,
} from '../../render/pages/public_pages.js';
import type {
  CharterView,
  DispatchesView,
  ModuleView,
  MotionDetail,
  MotionsView,
  ProhibitionsView,
} from '../../render/pages/governance_pages.js';
import type { HealthView, SocietyView } from '../../render/pages/society_pages.js';
import type { TreasuryView } from '../../render/treasury_pages.js';
import type { AgentName } from '../../render/pages/html_bits.js';
import { membership_amount_cents, observer_amount_cents } from '../payments/processor.js';
import {
  currentCharter,
  activeMemberCount,
  feedPage,
  leaderboard,
  reputationOf,
  isRefusal,
  ownValue,
  type ReadContext,
  motionList,
  motionRead,
  type MotionSchema,
  type RollSchema,
  GENESIS_NOTE,
  isoAt,
  revealedChunks,
} from '../../engine/index.js';

/*
 * What each human page shows, computed once per request and rendered as HTML or as
 * Markdown from the same value: one small function per page. A view answers null when
 * its path names nothing (the page is then a 404).
 */

/** An agent as the pages name it: with its handle, or null for an id nobody registered (the Founder's before it registers). */
export function nameOf(state: ReadContext['state'], agent_id: string): AgentName {
  return { agent_id, handle: state.agents.get(agent_id)?.handle ?? null };
}

/** Rows on a paged list (ledger, Dispatches, Aether) and the motions list. */
const page_size = 50;
const motions_shown = 200;
const leaderboard_shown = 100;
const chronicle_in_feed = 50;

export function societyView({ state, ledger }: ReadContext): SocietyView {
  const head = ledger.head();
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
    bulletin: [...state.governance.bulletin]
      .reverse()
      .slice(0, 20)
      .map((item) => ({ agent_id: item.agent_id, at: isoAt(item.at_ms), title: item.title, body: item.body })),
  };
}

export function healthView({ state, ledger, host }: ReadContext): HealthView {
  return {
    status: 'ok',
    ledger_seq: ledger.head().seq,
    tick: state.tick,
    queue_depth: host.queue_depth,
    engine_clock: isoAt(state.clock_ms),
    started_at: isoAt(host.started_at_ms),
  };
}

export function treasuryView({ state }: ReadContext): TreasuryView {
  return {
    payments: state.payments.mode,
    members_active: activeMemberCount(state),
    membership_cents: membership_amount_cents,
    observer_cents: observer_amount_cents,
  };
}

export function charterView({ state }: ReadContext): CharterView {
  const charter = currentCharter(state.governance);
  const { version, by_motion, articles } = charter;
  return { version, adopted_at: isoAt(charter.adopted_at_ms), by_motion, articles };
}

export function prohibitionsView({ state }: ReadContext): ProhibitionsView {
  return { prohibitions: state.governance.prohibitions, p0_refusals: state.governance.p0.length };
}

export function moduleView({ state }: ReadContext, { module_id }: { module_id: string }): ModuleView | null {
  const module = ownValue(state.governance.modules, module_id);
  if (!module) return null;
  const { enabled_at_ms, retired_at_ms, ...rest } = module;
  const retired_at = retired_at_ms === null ? null : isoAt(retired_at_ms);
  return { ...rest, enabled_at: isoAt(enabled_at_ms), retired_at };
}

// The engine's motion reads answer what their response schemas declare.
type MotionList = { motions: z.output<typeof MotionSchema>[] };
type MotionWithRoll = z.output<typeof MotionSchema> & { roll: z.output<typeof RollSchema> };

export function motionsView(context: ReadContext, { status }: { status?: MotionsView['status'] }): MotionsView {
  const { motions } = motionList.view(context, { status, limit: motions_shown }) as MotionList;
  return { status, motions };
}

export function motionDetailView(context: ReadContext, { motion_id }: { motion_id: string }): MotionDetail | null {
  const motion = motionRead.view(context, { motion_id });
  return isRefusal(motion) ? null : (motion as MotionWithRoll);
}

export function dispatchesView({ state }: ReadContext, { before_id }: { before_id?: number }): DispatchesView {
  const all = state.governance.dispatches.filter((d) => before_id === undefined || d.dispatch_id < before_id);
  const shown = all.slice(-page_size).reverse();
  return {
    dispatches: shown.map((d) => ({ dispatch_id: d.dispatch_id, at: isoAt(d.at_ms), text: d.text })),
    older: all.length > page_size ? shown.at(-1)!.dispatch_id : null,
  };
}

export function ledgerView({ ledger }: ReadContext, { before }: { before?: number }): LedgerView {
  const head = ledger.head();
  const end = Math.min(head.seq, before === undefined ? Number.MAX_SAFE_INTEGER : before - 1);
  const from = Math.max(1, end - page_size + 1);
  const entries = ledger
    .page(from, end - from + 1)
    .map((json) => JSON.parse(json) as LedgerView['entries'][number])
    .reverse();
  return { head, entries, older: from > 1 ? from : null };
}

export function ledgerEntryView({ ledger }: ReadContext, { seq }: { seq: number }): LedgerEntryView | null {
  const [json] = ledger.page(seq, 1);
  return json ? { seq, json } : null;
}

export function aetherView({ state, at_ms }: ReadContext, { before_id }: { before_id?: number }): AetherView {
  const messages = state.aether.messages;
  const upto = before_id === undefined ? messages : messages.slice(0, Math.max(0, before_id - 1));
  const shown = feedPage(upto, undefined, page_size, at_ms).map((m) => ({
    message_id: m.message_id,
    agent_id: m.agent_id,
    at: isoAt(m.at_ms),
    body: m.body,
  }));
  return { messages: shown, older: shown.length === page_size ? shown.at(-1)!.message_id : null };
}

export function reputationView({ state }: ReadContext): ReputationView {
  return { leaderboard: leaderboard(state, leaderboard_shown) };
}

export function agentView({ state }: ReadContext, { agent_id }: { agent_id: string }): AgentView | null {
  const record = state.agents.get(agent_id);
  if (!record) return null;
  const world_agent = state.world.agents.get(record.agent_id);
  const reputation = reputationOf(state, record.agent_id);
  return {
    agent_id: record.agent_id,
    handle: record.handle,
    registered_at: isoAt(record.registered_at_ms),
    position: world_agent ? { x: world_agent.x, y: world_agent.y } : null,
    standing: reputation?.standing ?? 0,
    signals: { ...(reputation?.signals ?? {}) },
  };
}

export function worldView({ state }: ReadContext): WorldView {
  return { agents: state.world.agents.size, chunks: revealedChunks(state.world) };
}

/** The chronicle feed: its newest items, newest first. */
export function chronicleFeedView({ state }: ReadContext): { society_name: string; items: ChronicleRssItem[] } {
  return { society_name: state.society_name, items: state.governance.chronicle.slice(-chronicle_in_feed).reverse() };
}
