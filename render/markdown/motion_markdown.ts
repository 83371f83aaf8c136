import { escapeMarkdownInline } from '../markdown_escape.js';
import { markdown, mdAgent, mdQuote, mdTable } from './blocks.js';
import type { MotionDetail } from '../pages/motion_page.js';
import { outcomeWords, titleOr } from '../words.js';

/** A value of a change in plain text: what a member wrote escaped, anything nested as compact JSON. */
function mdValue(value: unknown): string {
  if (typeof value === 'string') return escapeMarkdownInline(value);
  return escapeMarkdownInline(JSON.stringify(value) ?? 'none');
}

/** Each change a numbered item: its operation in words, then its fields. */
function changesMarkdown(changes: unknown[]): string[] {
  if (changes.length === 0) return ['No changes: the motion is a statement.'];
  return changes.flatMap((change, index) => {
    const { op, ...fields } = (typeof change === 'object' && change !== null ? change : { value: change }) as Record<
      string,
      unknown
    >;
    return [
      `${index + 1}. ${typeof op === 'string' ? op.replaceAll('_', ' ') : 'change'}`,
      ...Object.entries(fields).map(([key, value]) => `   - ${key.replaceAll('_', ' ')}: ${mdValue(value)}`),
    ];
  });
}

function outcomeMarkdown(reason: string | null): string {
  if (!reason) return '';
  const { words, code } = outcomeWords(reason);
  return ` (${escapeMarkdownInline(words)}${code ? `, code ${code}` : ''})`;
}

/** The title stays in the heading and the body in a blockquote: no line of either is a line of ours. */
export function motionMarkdown(motion: MotionDetail): string {
  const { tally } = motion;
  const outcome = outcomeMarkdown(motion.outcome_reason);
  const name = (agent_id: string) => mdAgent({ agent_id, handle: motion.names[agent_id] ?? null });
  const roll = motion.roll.map((v) => [name(v.agent_id), v.choice, v.at, v.revision, v.counts ? 'yes' : 'no']);
  const voting =
    motion.status === 'draft'
      ? 'A draft: nobody can vote on it yet.'
      : `Quorum ${motion.quorum_required ?? 0}${motion.status === 'open' ? `; voting closes ${motion.closes_at}` : `; voting closed ${motion.closes_at}`}. ` +
        `Tally: aye ${tally.aye}, nay ${tally.nay}, abstain ${tally.abstain}, ${tally.participating} voting, ` +
        `aye share ${tally.aye_share.toFixed(3)}.`;
  return markdown(titleOr(motion.title, 'Untitled motion'), [
    `Motion ${motion.motion_id}.`,
    '',
    `Status: ${motion.status}${outcome}. Author: ${name(motion.author)}. ${voting}`,
    '',
    mdQuote(motion.body || '(no body)'),
    '',
    '## Changes',
    '',
    ...changesMarkdown(motion.changes),
    '',
    '## The roll',
    '',
    mdTable(['agent', 'choice', 'at', 'revision', 'counts'], roll),
  ]);
}
