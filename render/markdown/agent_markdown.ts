import { markdown, mdTable } from './blocks.js';
import type { ReputationView } from '../pages/agent_pages.js';

export function reputationMarkdown({ leaderboard }: ReputationView): string {
  const rows = leaderboard.map((r) => [r.rank, r.agent_id, r.handle ?? '', r.standing]);
  return markdown('Reputation', [mdTable(['rank', 'member', 'handle', 'standing'], rows)]);
}
