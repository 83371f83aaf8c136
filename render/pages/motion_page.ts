import { page, type PageFrame } from '../layout.js';
import { e, link, member, memberPre, pre, table } from './html_bits.js';
import type { MotionRow } from './governance_pages.js';

export interface MotionDetail extends MotionRow {
  body: string;
  changes: unknown[];
  cosponsors: string[];
  outcome_reason: string | null;
  quorum_required: number | null;
  closes_at: string | null;
  roll: { agent_id: string; choice: string; at: string; revision: number; counts: boolean }[];
}

export function motionPage(frame: PageFrame, motion: MotionDetail): string {
  return page(
    frame,
    `<p class="byline"><strong>${member(motion.title)}</strong> by ${link(`/agents/${motion.author}`, motion.author)}: ${e(motion.status)}${motion.outcome_reason ? ` (${member(motion.outcome_reason)})` : ''}.</p>
<p>Quorum ${motion.quorum_required ?? '-'}; voting closes ${e(motion.closes_at ?? '-')}. Tally: aye ${motion.tally.aye}, nay ${motion.tally.nay}, abstain ${motion.tally.abstain}, ${motion.tally.participating} voting.</p>
<h2>Body</h2>
${memberPre(motion.body)}
<h2>Changes</h2>
${pre(JSON.stringify(motion.changes, null, 2))}
<h2>The roll</h2>
${table(
  ['agent', 'choice', 'at', 'revision', 'counts'],
  motion.roll.map((v) => [v.agent_id, v.choice, v.at, v.revision, v.counts ? 'yes' : 'no']),
)}`,
  );
}
