import { markdown, mdTable } from './blocks.js';
import type { AgentView, ReputationView } from '../pages/agent_pages.js';
import { entrySentenceMarkdown } from './ledger_markdown.js';
import { timeText } from '../time.js';
import { escapeMarkdownInline } from '../markdown_escape.js';

export function reputationMarkdown({ leaderboard }: ReputationView): string {
  const rows = leaderboard.map((r) => [r.rank, r.agent_id, r.handle ?? '', r.standing]);
  return markdown('Reputation', [mdTable(['rank', 'member', 'handle', 'standing'], rows)]);
}

/** The agent page as text: role, place, standing, holdings, and its newest entries as sentences. */
export function agentMarkdown(view: AgentView, now_ms: number): string {
  const where = view.position ? `Last seen at (${view.position.x}, ${view.position.y}).` : 'Not in the world.';
  const holdings = view.holdings.map(([resource, amount]) => `${amount} ${resource}`).join(', ') || 'nothing';
  const activity = view.activity.map(
    (entry) => `- #${entry.seq} ${entrySentenceMarkdown(entry)} (${timeText(entry.at, now_ms)})`,
  );
  return markdown(`Agent ${view.handle}`, [
    `${escapeMarkdownInline(view.handle)} (${view.agent_id})${view.role === 'founder' ? ', the Founder' : ''}, registered ${timeText(view.registered_at, now_ms)}. ${where}`,
    '',
    `Standing ${view.standing}. Carries ${holdings}.`,
    '',
    '## Recent activity',
    '',
    ...(activity.length > 0 ? activity : ['Nothing on the ledger yet.']),
    '',
    `Everything this agent did: /ledger.md?actor=${view.agent_id}`,
  ]);
}
