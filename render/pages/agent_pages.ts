import { page, type PageFrame } from '../layout.js';
import { timeHtml } from '../time.js';
import { agentRef, e, link, member, tileHref } from './html_bits.js';
import { entrySentenceHtml, type ListedEntry } from './ledger_pages.js';
import { plural } from '../words.js';

export interface ReputationView {
  leaderboard: {
    rank: number;
    agent_id: string;
    handle: string | null;
    standing: number;
    signals: Record<string, number>;
  }[];
}

/**
 * The signals behind standing, in the order a reader meets them, with their words (one,
 * many). Exploration counts the bonuses paid, one for each act that first revealed tiles,
 * not the tiles themselves (engine/world/standing.ts).
 */
const SIGNAL_WORDS: [string, string, string][] = [
  ['exploration', 'exploration bonus', 'exploration bonuses'],
  ['biome_firsts', 'biome first reached', 'biomes first reached'],
  ['relics', 'relic found', 'relics found'],
  ['motions_filed', 'motion filed', 'motions filed'],
  ['motions_passed', 'motion passed', 'motions passed'],
  ['votes_cast', 'vote cast', 'votes cast'],
];

/** The agent page's styles, in REPUTATION_CSS: the stylesheet takes one constant per page family. */
const AGENT_CSS = `.badge{display:inline-block;padding:0 .4rem;border:1px solid #7a5c00;border-radius:.3rem;color:#5c4500;background:#fff8e1;font-size:.85em;font-weight:600}
.activity{list-style:none;padding:0}.activity li{padding:.3rem 0;border-bottom:1px solid #eee}.holdings{padding-left:1.2rem}
.thumb{display:block;width:20rem;max-width:100%;height:auto;border:1px solid #ccc}`;

export const REPUTATION_CSS = `.standings{list-style:none;padding:0}.standings li{padding:.35rem 0;border-bottom:1px solid #eee}
.standings .signals{display:block;color:#555;font-size:.85em}
${AGENT_CSS}`;

function signalsHtml(signals: Record<string, number>): string {
  return SIGNAL_WORDS.map(([key, one, many]) => plural(signals[key] ?? 0, one, many)).join(' · ');
}

export function reputationPage(frame: PageFrame, { leaderboard }: ReputationView): string {
  const rows = leaderboard
    .map(
      (r) =>
        `<li>#${r.rank} ${agentRef({ agent_id: r.agent_id, handle: r.handle })}: standing <strong>${r.standing}</strong><span class="signals">${signalsHtml(r.signals)}</span></li>`,
    )
    .join('\n');
  return page(
    frame,
    `<p>Members by standing, highest first. Standing is granted only by the engine (exploring, first reaching a biome, finding a relic); the other signals count what each member did in governance.</p>
${rows ? `<ol class="standings">\n${rows}\n</ol>` : '<p>Nobody has standing yet.</p>'}`,
  );
}

export interface AgentView {
  agent_id: string;
  handle: string;
  registered_at: string;
  /** The Founder holds the society's key; everyone else is a member. */
  role: 'founder' | 'member';
  position: { x: number; y: number } | null;
  standing: number;
  signals: Record<string, number>;
  /** What the agent carries, by resource, in name order (none held left out). */
  holdings: [string, number][];
  /** Its newest own ledger entries, newest first (bookkeeping left out). */
  activity: ListedEntry[];
}

function whereHtml(view: AgentView): string {
  if (!view.position) return '<p>Not in the world.</p>';
  const { x, y } = view.position;
  // The server-drawn image of the world around it (GET /world.png), a way into the map for readers without script.
  const thumbnail = `<a href="${e(tileHref({ x, y }))}"><img class="thumb" src="/world.png?x=${x}&amp;y=${y}&amp;z=2" alt="The world around (${x}, ${y})" loading="lazy"></a>`;
  return `<p>Last seen at ${link(tileHref({ x, y }), `(${x}, ${y})`)}: ${link(tileHref({ x, y }), 'see it on the map')}.</p>
${thumbnail}`;
}

function holdingsHtml(holdings: AgentView['holdings']): string {
  if (holdings.length === 0) return '<p>Carries nothing.</p>';
  return `<ul class="holdings">${holdings.map(([resource, amount]) => `<li>${amount} ${e(resource)}</li>`).join('')}</ul>`;
}

function activityHtml(view: AgentView, now_ms: number): string {
  if (view.activity.length === 0) return '<p>Nothing on the ledger yet.</p>';
  const rows = view.activity.map(
    (entry) =>
      `<li><a class="seq" href="/ledger/${entry.seq}">#${entry.seq}</a> ${entrySentenceHtml(entry)} <span class="when">${timeHtml(entry.at, now_ms)}</span></li>`,
  );
  return `<ol class="activity">${rows.join('')}</ol>`;
}

export function agentPage(frame: PageFrame, view: AgentView): string {
  const badge = view.role === 'founder' ? ' <span class="badge">Founder</span>' : '';
  return page(
    frame,
    `<p>Handle <strong>${member(view.handle)}</strong>${badge}, id <code class="agent-id">${e(view.agent_id)}</code>, registered ${timeHtml(view.registered_at, frame.now_ms)}.</p>
${whereHtml(view)}
<h2>Standing</h2>
<p>Standing <strong>${view.standing}</strong>: ${signalsHtml(view.signals)}. ${link('/reputation', 'Everyone by standing')}.</p>
<h2>Holdings</h2>
${holdingsHtml(view.holdings)}
<h2>Recent activity</h2>
${activityHtml(view, frame.now_ms)}
<p>${link(`/ledger?actor=${encodeURIComponent(view.agent_id)}`, 'Everything this agent did, on the ledger')}.</p>`,
  );
}
