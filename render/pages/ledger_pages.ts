import { page, type PageFrame } from '../layout.js';
import { e, link, pre, table } from './html_bits.js';

export interface LedgerView {
  head: { seq: number; hash: string };
  /** Newest first. */
  entries: { seq: number; at: string; event_type: string; actor: string }[];
  /** The seq the next older page ends before, if there is one. */
  older: number | null;
}

export function ledgerPage(frame: PageFrame, { entries, older }: LedgerView): string {
  return page(
    frame,
    `<p>The raw chain with its recipe: ${link('/api/v1/ledger', '/api/v1/ledger')}. Re-verify it with <code>tessera-agent verify</code>.</p>
${table(
  ['seq', 'at', 'event', 'actor'],
  entries.map((x) => [link(`/ledger/${x.seq}`, String(x.seq)), e(x.at), e(x.event_type), e(x.actor)]),
  [0],
)}
${older ? `<p>${link(`/ledger?before=${older}`, 'Older')}</p>` : ''}`,
  );
}

export interface LedgerEntryView {
  seq: number;
  /** The entry exactly as stored. */
  json: string;
}

export function ledgerEntryPage(frame: PageFrame, { json }: LedgerEntryView): string {
  return page(frame, pre(JSON.stringify(JSON.parse(json), null, 2)));
}
