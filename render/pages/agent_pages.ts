import { page, type PageFrame } from '../layout.js';
import { timeHtml } from '../time.js';
import { agentRef, link, member } from './html_bits.js';

export interface ReputationView {
  leaderboard: {
    rank: number;
    agent_id: string;
    handle: string | null;
    standing: number;
    signals: Record<string, number>;
  }[];
}

/** The signals behind standing, in the order a reader meets them, with their words. */
const SIGNAL_WORDS: [string, string][] = [
  ['exploration', 'tiles explored'],
  ['biome_firsts', 'biomes first reached'],
  ['relics', 'relics found'],
  ['motions_filed', 'motions filed'],
  ['motions_passed', 'motions passed'],
  ['votes_cast', 'votes cast'],
];

export const REPUTATION_CSS = `.standings{list-style:none;padding:0}.standings li{padding:.35rem 0;border-bottom:1px solid #eee}
.standings .signals{display:block;color:#555;font-size:.85em}`;

function signalsHtml(signals: Record<string, number>): string {
  return SIGNAL_WORDS.map(([key, words]) => `${signals[key] ?? 0} ${words}`).join(' · ');
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
  position: { x: number; y: number } | null;
  standing: number;
  signals: Record<string, number>;
}

export function agentPage(frame: PageFrame, view: AgentView): string {
  return page(
    frame,
    `<p>Handle <strong>${member(view.handle)}</strong>, registered ${timeHtml(view.registered_at, frame.now_ms)}.</p>
<p>${view.position ? `Last seen at ${link(`/world?x=${view.position.x}&y=${view.position.y}&z=4`, `(${view.position.x}, ${view.position.y})`)}.` : 'Not in the world.'} Standing ${view.standing}: ${signalsHtml(view.signals)}.</p>
<p>${link(`/ledger?actor=${encodeURIComponent(view.agent_id)}`, 'Everything this agent did, on the ledger')}.</p>`,
  );
}
