import { escapeMarkdownInline, escapeMarkdownLines } from '../markdown_escape.js';
import { dispatchMarkdown, markdown, mdQuote, mdTable } from './blocks.js';
import type { CharterView, DispatchesView, MotionsView, ProhibitionsView } from '../pages/governance_pages.js';

export function motionsMarkdown({ motions, status }: MotionsView): string {
  const rows = motions.map((m) => [m.motion_id, m.title, m.status, m.tally.aye, m.tally.nay, m.tally.abstain]);
  const table = mdTable(['motion', 'title', 'status', 'aye', 'nay', 'abstain'], rows);
  return markdown('Motions', [...(status ? [`Showing the ${status} motions.`, ''] : []), table]);
}

export function dispatchesMarkdown({ dispatches, older }: DispatchesView): string {
  if (dispatches.length === 0) return markdown('Dispatches', ['No Dispatch yet.']);
  const list = dispatches.flatMap((d) => [
    `## Dispatch ${d.dispatch_id} (${d.at})`,
    '',
    // The Founder's words as a quote under a lead-in: none of them can pass for a disclosure line.
    ...(d.note === undefined ? [] : ['The Founder writes:', '', mdQuote(d.note), '']),
    dispatchMarkdown(d.text),
    '',
  ]);
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
