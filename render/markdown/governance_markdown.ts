import { escapeMarkdownInline, escapeMarkdownLines } from '../markdown_escape.js';
import { dispatchMarkdown, markdown, mdQuote, mdTable } from './blocks.js';
import type {
  CharterView,
  DispatchesView,
  MotionDetail,
  MotionsView,
  ProhibitionsView,
} from '../pages/governance_pages.js';

export function motionsMarkdown({ motions, status }: MotionsView): string {
  const rows = motions.map((m) => [m.motion_id, m.title, m.status, m.tally.aye, m.tally.nay, m.tally.abstain]);
  const table = mdTable(['motion', 'title', 'status', 'aye', 'nay', 'abstain'], rows);
  return markdown('Motions', [...(status ? [`Showing the ${status} motions.`, ''] : []), table]);
}

/** The title stays in the heading and the body in a blockquote: no line of either is a line of ours. */
export function motionMarkdown(motion: MotionDetail): string {
  const { tally } = motion;
  const outcome = motion.outcome_reason ? ` (${escapeMarkdownInline(motion.outcome_reason)})` : '';
  const roll = motion.roll.map((v) => [v.agent_id, v.choice, v.at, v.revision, v.counts ? 'yes' : 'no']);
  return markdown(`Motion ${motion.motion_id}: ${motion.title}`, [
    `Status: ${motion.status}${outcome}. Author: ${motion.author}. ` +
      `Quorum ${motion.quorum_required ?? '-'}; voting closes ${motion.closes_at ?? '-'}. ` +
      `Tally: aye ${tally.aye}, nay ${tally.nay}, abstain ${tally.abstain}, ${tally.participating} voting, ` +
      `aye share ${tally.aye_share.toFixed(3)}.`,
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

export function dispatchesMarkdown({ dispatches, older }: DispatchesView): string {
  if (dispatches.length === 0) return markdown('Dispatches', ['No Dispatch yet.']);
  const list = dispatches.flatMap((d) => [`## Dispatch ${d.dispatch_id} (${d.at})`, '', dispatchMarkdown(d.text), '']);
  return markdown('Dispatches', [...list, ...(older ? [`Older: /dispatches.md?before_id=${older}`] : [])]);
}

/** A charter version: Bedrock axioms first, then the Domain articles. */
export function charterMarkdown(charter: CharterView): string {
  const section = (namespace: 'bedrock' | 'domain') =>
    charter.articles
      .filter((article) => article.namespace === namespace)
      .map((article) => {
        const heading = `### ${escapeMarkdownInline(`${article.article_id}. ${article.title}`)}`;
        return `${heading}\n\n${escapeMarkdownLines(article.text).join('\n')}\n`;
      })
      .join('\n');
  const adopted_by = charter.by_motion ? ` by motion ${charter.by_motion}` : ' at the founding';
  return markdown(`Charter, version ${charter.version}`, [
    `Adopted ${charter.adopted_at}${adopted_by}. Every earlier version stays readable at /charter/v{version}.json.`,
    '',
    '## Bedrock: the axioms (no motion can change these)',
    '',
    section('bedrock'),
    '## Domain (members change these by motion)',
    '',
    section('domain'),
  ]);
}

export function prohibitionsMarkdown({ prohibitions, p0_refusals }: ProhibitionsView): string {
  return markdown('Prohibitions', [
    ...prohibitions.map((p) => {
      const id = escapeMarkdownInline(p.prohibition_id);
      return `- **${id}** (${p.namespace}): ${escapeMarkdownInline(p.text)}`;
    }),
    '',
    `${p0_refusals} operations refused at the Bedrock boundary so far: /prohibitions/p0.`,
  ]);
}
