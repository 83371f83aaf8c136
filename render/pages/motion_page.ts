import { segmentedBar } from '../charts.js';
import { page, type PageFrame } from '../layout.js';
import { timeHtml } from '../time.js';
import { agentRef, dataListHtml, e, member, type AgentName } from './html_bits.js';
import { outcomeWords, plural } from '../words.js';
import type { MotionRow } from './governance_pages.js';

export interface MotionDetail extends MotionRow {
  body: string;
  changes: unknown[];
  cosponsors: string[];
  outcome_reason: string | null;
  quorum_required: number | null;
  filed_at: string;
  closes_at: string | null;
  enacted_at: string | null;
  roll: { agent_id: string; choice: string; at: string; revision: number; counts: boolean }[];
  /** Handles of the author, cosponsors and voters. */
  names: Record<string, string | null>;
}

export const MOTION_CSS = `.motion-body p{white-space:pre-wrap}.roll{list-style:none;padding:0}.roll li{padding:.2rem 0}
.roll .superseded{color:#595959}
.changes li{margin:.3rem 0}.outcome-code{font-size:.8em;color:#595959}.motion-id-line{color:#595959}`;

/** Why it closed as it did, in words, with the engine's code beside them. */
function outcomeHtml(reason: string | null): string {
  if (!reason) return '';
  const { words, code } = outcomeWords(reason);
  return ` (${member(words)}${code ? ` <code class="outcome-code" title="the engine's code">${e(code)}</code>` : ''})`;
}

/** A motion's changes, each its operation in words over the fields it sets. */
function changesHtml(changes: unknown[]): string {
  if (changes.length === 0) return '<p>No changes: the motion is a statement.</p>';
  const items = changes.map((change) => {
    const { op, ...fields } = (typeof change === 'object' && change !== null ? change : { value: change }) as Record<
      string,
      unknown
    >;
    const what = typeof op === 'string' ? `<strong>${e(op.replaceAll('_', ' '))}</strong>` : '<strong>change</strong>';
    return `<li>${what}${dataListHtml(fields)}</li>`;
  });
  return `<ol class="changes">${items.join('')}</ol>`;
}

/** What the motion's status means now, in a sentence: never a future closing for a closed motion, nor a quorum for a draft. */
function statusSentence(motion: MotionDetail, now_ms: number): string {
  const when = (iso: string | null) => (iso ? timeHtml(iso, now_ms) : '');
  const reason = outcomeHtml(motion.outcome_reason);
  switch (motion.status) {
    case 'draft':
      return 'A draft: members may cosponsor it, and its author opens it for a vote when ready. Nobody can vote on it yet.';
    case 'open':
      return `Open for voting until ${when(motion.closes_at)}. It passes if at least ${plural(motion.quorum_required ?? 0, 'member votes', 'members vote')} and more say aye than nay.`;
    case 'passed':
      return `Passed when voting closed, ${when(motion.closes_at)}${reason}: the Founder enacts it next.`;
    case 'enacted':
      return `Enacted ${when(motion.enacted_at)}${reason}.`;
    default:
      return `Failed${motion.closes_at ? ` when voting closed, ${when(motion.closes_at)}` : ''}${reason}.`;
  }
}

export function motionPage(frame: PageFrame, motion: MotionDetail): string {
  const name = (agent_id: string): AgentName => ({ agent_id, handle: motion.names[agent_id] ?? null });
  const { tally } = motion;
  const tally_html =
    motion.status === 'draft'
      ? ''
      : `<h2>The tally</h2>
${segmentedBar(
  `Tally of ${motion.motion_id}`,
  [
    { label: 'aye', value: tally.aye, tone: 'aye' },
    { label: 'nay', value: tally.nay, tone: 'nay' },
    { label: 'abstain', value: tally.abstain, tone: 'abstain' },
  ],
  motion.quorum_required ? { marker: { at: motion.quorum_required, label: `quorum ${motion.quorum_required}` } } : {},
)}
<p>${plural(tally.participating, 'member', 'members')} voting${motion.quorum_required ? ` of the ${motion.quorum_required} needed` : ''}; aye ${tally.aye}, nay ${tally.nay}, abstain ${tally.abstain}.</p>`;
  const paragraphs = motion.body
    .split(/\n{2,}/)
    .filter((text) => text.trim() !== '')
    .map((text) => `<p>${member(text)}</p>`)
    .join('');
  const roll = motion.roll
    .map(
      (vote) =>
        `<li${vote.counts ? '' : ' class="superseded"'}>${agentRef(name(vote.agent_id))} voted <strong>${e(vote.choice)}</strong> ${timeHtml(vote.at, frame.now_ms)}${vote.revision > 0 ? ` (revision ${vote.revision})` : ''}${vote.counts ? '' : ', since revised'}</li>`,
    )
    .join('\n');
  const cosponsors = motion.cosponsors.length
    ? `<p>Cosponsored by ${motion.cosponsors.map((id) => agentRef(name(id))).join(', ')}.</p>`
    : '';
  return page(
    frame,
    `<p class="byline">Motion <code>${e(motion.motion_id)}</code>, filed by ${agentRef(name(motion.author))} ${timeHtml(motion.filed_at, frame.now_ms)}.</p>
<p class="status">Status: <strong>${e(motion.status)}</strong>. ${statusSentence(motion, frame.now_ms)}</p>
${cosponsors}${tally_html}
<h2>Body</h2>
<div class="motion-body">${paragraphs || '<p>(no body)</p>'}</div>
<h2>Changes</h2>
${changesHtml(motion.changes)}
<h2>The roll</h2>
${roll ? `<ul class="roll">\n${roll}\n</ul>` : '<p>No votes yet.</p>'}`,
  );
}
