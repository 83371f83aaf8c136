import { escapeMarkdownInline } from '../markdown_escape.js';
import { markdown, mdAgent, mdQuote, mdTable } from './blocks.js';
import type { MotionDetail } from '../pages/motion_page.js';

/** The title stays in the heading and the body in a blockquote: no line of either is a line of ours. */
export function motionMarkdown(motion: MotionDetail): string {
  const { tally } = motion;
  const outcome = motion.outcome_reason ? ` (${escapeMarkdownInline(motion.outcome_reason)})` : '';
  const name = (agent_id: string) => mdAgent({ agent_id, handle: motion.names[agent_id] ?? null });
  const roll = motion.roll.map((v) => [name(v.agent_id), v.choice, v.at, v.revision, v.counts ? 'yes' : 'no']);
  const voting =
    motion.status === 'draft'
      ? 'A draft: nobody can vote on it yet.'
      : `Quorum ${motion.quorum_required ?? 0}${motion.status === 'open' ? `; voting closes ${motion.closes_at}` : `; voting closed ${motion.closes_at}`}. ` +
        `Tally: aye ${tally.aye}, nay ${tally.nay}, abstain ${tally.abstain}, ${tally.participating} voting, ` +
        `aye share ${tally.aye_share.toFixed(3)}.`;
  return markdown(`Motion ${motion.motion_id}: ${motion.title}`, [
    `Status: ${motion.status}${outcome}. Author: ${name(motion.author)}. ${voting}`,
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
    mdTable(['agent', 'choice', 'at', 'revision', 'counts'], roll),
  ]);
}
