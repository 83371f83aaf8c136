import { segmentedBar } from '../charts.js';
import { page, type PageFrame } from '../layout.js';
import { timeHtml } from '../time.js';
import { agentRef, dataListHtml, e, member, type AgentName } from './html_bits.js';
import { outcomeWords, plural } from '../words.js';
import type { MotionRow } from './governance_pages.js';

/**
 * The parts of a motion's page, each an `id` on the whole page (so `#tally` finds it) and a
 * value of the page's `fragment` query, which shows that part alone. In page order.
 */
export const MOTION_FRAGMENTS = ['status', 'tally', 'body', 'changes', 'roll'] as const;
export type MotionFragment = (typeof MOTION_FRAGMENTS)[number];

/** Each part in words, for the line above a part shown alone. */
export const MOTION_FRAGMENT_WORDS: Readonly<Record<MotionFragment, string>> = {
  status: 'who filed it and where it stands',
  tally: 'the tally',
  body: 'the body',
  changes: 'the changes',
  roll: 'the roll',
};

/** The one part a motion can lack: a draft is not voted on, so it has no tally to show. */
export const DRAFT_HAS_NO_TALLY =
  'This motion is a draft, so it has no tally: nobody can vote on it until its author opens it for a vote.';

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
  /** The one part asked for (the `fragment` query), or null for the whole motion. */
  fragment: MotionFragment | null;
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

function tallyHtml(motion: MotionDetail): string {
  const { tally } = motion;
  return `<h2>The tally</h2>
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
}

function bodyHtml(body: string): string {
  const paragraphs = body
    .split(/\n{2,}/)
    .filter((text) => text.trim() !== '')
    .map((text) => `<p>${member(text)}</p>`)
    .join('');
  return `<h2>Body</h2>
<div class="motion-body">${paragraphs || '<p>(no body)</p>'}</div>`;
}

function rollHtml(motion: MotionDetail, name: (agent_id: string) => AgentName, now_ms: number): string {
  const roll = motion.roll
    .map(
      (vote) =>
        `<li${vote.counts ? '' : ' class="superseded"'}>${agentRef(name(vote.agent_id))} voted <strong>${e(vote.choice)}</strong> ${timeHtml(vote.at, now_ms)}${vote.revision > 0 ? ` (revision ${vote.revision})` : ''}${vote.counts ? '' : ', since revised'}</li>`,
    )
    .join('\n');
  return `<h2>The roll</h2>
${roll ? `<ul class="roll">\n${roll}\n</ul>` : '<p>No votes yet.</p>'}`;
}

function statusHtml(motion: MotionDetail, name: (agent_id: string) => AgentName, now_ms: number): string {
  const cosponsors = motion.cosponsors.length
    ? `\n<p>Cosponsored by ${motion.cosponsors.map((id) => agentRef(name(id))).join(', ')}.</p>`
    : '';
  return `<p class="byline">Motion <code>${e(motion.motion_id)}</code>, filed by ${agentRef(name(motion.author))} ${timeHtml(motion.filed_at, now_ms)}.</p>
<p class="status">Status: <strong>${e(motion.status)}</strong>. ${statusSentence(motion, now_ms)}</p>${cosponsors}`;
}

/** Each part's HTML, or null for a part this motion lacks (the tally of a draft). */
function partsHtml(motion: MotionDetail, now_ms: number): Record<MotionFragment, string | null> {
  const name = (agent_id: string): AgentName => ({ agent_id, handle: motion.names[agent_id] ?? null });
  return {
    status: statusHtml(motion, name, now_ms),
    tally: motion.status === 'draft' ? null : tallyHtml(motion),
    body: bodyHtml(motion.body),
    changes: `<h2>Changes</h2>\n${changesHtml(motion.changes)}`,
    roll: rollHtml(motion, name, now_ms),
  };
}

const sectionHtml = (fragment: MotionFragment, html: string) => `<section id="${fragment}">\n${html}\n</section>`;

/** One part alone, under a line saying which part of which motion it is and linking the whole. */
function fragmentHtml(motion: MotionDetail, fragment: MotionFragment, part: string | null): string {
  const id = e(motion.motion_id);
  const line = `<p class="motion-id-line">Part of motion <code>${id}</code>: ${MOTION_FRAGMENT_WORDS[fragment]}. <a href="/motions/${id}">The whole motion</a></p>`;
  return `${line}\n${part === null ? `<p>${DRAFT_HAS_NO_TALLY}</p>` : sectionHtml(fragment, part)}`;
}

export function motionPage(frame: PageFrame, motion: MotionDetail): string {
  const parts = partsHtml(motion, frame.now_ms);
  if (motion.fragment !== null) return page(frame, fragmentHtml(motion, motion.fragment, parts[motion.fragment]));
  const present = MOTION_FRAGMENTS.flatMap((fragment) => {
    const part = parts[fragment];
    return part === null ? [] : [sectionHtml(fragment, part)];
  });
  return page(frame, present.join('\n'));
}
