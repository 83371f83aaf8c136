import type { ChronicleRssItem } from '../../../render/chronicle_rss.js';
import type { HealthView, SocietyView } from '../../../render/pages/society_pages.js';
import type { TreasuryView } from '../../../render/treasury_pages.js';
import { membership_amount_cents, observer_amount_cents } from '../../payments/processor.js';
import { activeMemberCount, type ReadContext, GENESIS_NOTE, isoAt } from '../../../engine/index.js';
import { vitalsOf } from '../vitals.js';
import { nameOf } from './names.js';

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
      .map((item) => ({
        agent_id: item.agent_id,
        handle: nameOf(state, item.agent_id).handle,
        at: isoAt(item.at_ms),
        title: item.title,
        body: item.body,
      })),
    founder_handle: nameOf(state, state.founder_agent_id).handle,
    vitals: societyVitalsOf(state, ledger),
  };
}

/** Days the charts show at most: the newest ones. */
const days_shown = 30;

function societyVitalsOf(state: ReadContext['state'], ledger: ReadContext['ledger']): SocietyView['vitals'] {
  const vitals = vitalsOf(ledger, state);
  const days = [...vitals.days.entries()].sort(([a], [b]) => (a < b ? -1 : 1));
  // Running totals over every day folded, then the newest days_shown of them.
  let members = 0;
  let entries = 0;
  const rows = days.map(([day, counts]) => {
    members += counts.registrations;
    entries += counts.entries;
    return { day, acts: counts.acts, members, entries };
  });
  const motions_by_status: Record<string, number> = { draft: 0, open: 0, passed: 0, enacted: 0, failed: 0 };
  for (const motion of Object.values(state.governance.motions)) motions_by_status[motion.status]! += 1;
  const head = ledger.head().seq;
  return {
    days: rows.slice(-days_shown),
    motions_by_status,
    ap_by_biome: [...vitals.ap_by_biome.entries()].sort(([a], [b]) => (a < b ? -1 : 1)),
    counting: vitals.folded_seq < head ? { folded: vitals.folded_seq, of: head } : null,
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

/** The chronicle feed: its newest items, newest first. */
export function chronicleFeedView({ state }: ReadContext): { society_name: string; items: ChronicleRssItem[] } {
  return { society_name: state.society_name, items: state.governance.chronicle.slice(-chronicle_in_feed).reverse() };
}
