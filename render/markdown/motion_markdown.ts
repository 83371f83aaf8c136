import { escapeMarkdownInline } from '../markdown_escape.js';
import { markdown, mdAgent, mdQuote, mdTable } from './blocks.js';
import {
  DRAFT_HAS_NO_TALLY,
  MOTION_FRAGMENT_WORDS,
  type MotionDetail,
  type MotionFragment,
} from '../pages/motion_page.js';
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

/** Each part's lines, as the HTML page's parts; the tally is null for a draft, which has none. */
type PartsMarkdown = Record<Exclude<MotionFragment, 'tally'>, string[]> & { tally: string[] | null };

function partsMarkdown(motion: MotionDetail): PartsMarkdown {
  const { tally } = motion;
  const name = (agent_id: string) => mdAgent({ agent_id, handle: motion.names[agent_id] ?? null });
  const roll = motion.roll.map((v) => [name(v.agent_id), v.choice, v.at, v.revision, v.counts ? 'yes' : 'no']);
  const is_draft = motion.status === 'draft';
  const draft = is_draft ? ' A draft: nobody can vote on it yet.' : '';
  return {
    status: [
      `Status: ${motion.status}${outcomeMarkdown(motion.outcome_reason)}. Author: ${name(motion.author)}.${draft}`,
    ],
    tally: is_draft
      ? null
      : [
          `Quorum ${motion.quorum_required ?? 0}${motion.status === 'open' ? `; voting closes ${motion.closes_at}` : `; voting closed ${motion.closes_at}`}. ` +
            `Tally: aye ${tally.aye}, nay ${tally.nay}, abstain ${tally.abstain}, ${tally.participating} voting, ` +
            `aye share ${tally.aye_share.toFixed(3)}.`,
        ],
    body: [mdQuote(motion.body || '(no body)')],
    changes: ['## Changes', '', ...changesMarkdown(motion.changes)],
    roll: ['## The roll', '', mdTable(['agent', 'choice', 'at', 'revision', 'counts'], roll)],
  };
}

/** One part alone, under a line saying which part of which motion it is and where the whole is. */
function fragmentMarkdown(motion: MotionDetail, fragment: MotionFragment, part: string[] | null): string[] {
  return [
    `Part of motion ${motion.motion_id}: ${MOTION_FRAGMENT_WORDS[fragment]}. The whole motion: /motions/${motion.motion_id}.md`,
    '',
    ...(part ?? [DRAFT_HAS_NO_TALLY]),
  ];
}

/** The title stays in the heading and the body in a blockquote: no line of either is a line of ours. */
export function motionMarkdown(motion: MotionDetail): string {
  const title = titleOr(motion.title, 'Untitled motion');
  const parts = partsMarkdown(motion);
  if (motion.fragment !== null)
    return markdown(title, fragmentMarkdown(motion, motion.fragment, parts[motion.fragment]));
  // Whole, the twin keeps the status and the tally on one line, as readers of it already parse it.
  const standing = [...parts.status, ...(parts.tally ?? [])].join(' ');
  return markdown(title, [
    `Motion ${motion.motion_id}.`,
    '',
    standing,
    '',
    ...parts.body,
    '',
    ...parts.changes,
    '',
    ...parts.roll,
  ]);
}
