import { page, type PageFrame } from '../layout.js';
import { e, link, member, table } from './html_bits.js';

export interface ReputationView {
  leaderboard: { rank: number; agent_id: string; handle: string | null; standing: number }[];
}

export function reputationPage(frame: PageFrame, { leaderboard }: ReputationView): string {
  return page(
    frame,
    table(
      ['rank', 'member', 'handle', 'standing'],
      leaderboard.map((r) => [r.rank, link(`/agents/${r.agent_id}`, r.agent_id), member(r.handle ?? ''), r.standing]),
      [1, 2],
    ),
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
    `<p>Handle <strong>${member(view.handle)}</strong>, registered ${e(view.registered_at)}.</p>
<p>${view.position ? `Last seen at (${view.position.x}, ${view.position.y}).` : 'Not in the world.'} Standing ${view.standing}.</p>
${table(
  ['signal', 'count'],
  Object.entries(view.signals).map(([k, v]) => [k, v]),
)}`,
  );
}
