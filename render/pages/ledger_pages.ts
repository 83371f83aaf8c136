import { page, type PageFrame } from '../layout.js';
import { BOOKKEEPING_EVENTS, KNOWN_EVENT_TYPES, type SentencePart } from '../ledger_sentences.js';
import { sentenceHtml, type NameOf } from '../sentence_text.js';
import { timeHtml } from '../time.js';
import { agentRef, e, link, type AgentName } from './html_bits.js';

/** One entry of the explorer: its sentence, and the handles of the agents it names. */
export interface ListedEntry {
  seq: number;
  at: string;
  event_type: string;
  sentence: SentencePart[];
  names: Record<string, string | null>;
}

export interface LedgerFilters {
  type?: string;
  actor?: string;
  bookkeeping: 'shown' | 'hidden';
}

export interface LedgerView {
  head: { seq: number; hash: string };
  filters: LedgerFilters;
  /** Newest first. */
  entries: ListedEntry[];
  /** The `before` of the next older page, and the `after` of the next newer one. */
  older: number | null;
  newer: number | null;
  /** Bookkeeping entries this page passed over. */
  hidden_bookkeeping: number;
  /** The seqs a filtered page read without filling up (the scan has a bound per request). */
  searched: { from: number; to: number } | null;
  actor_name: AgentName | null;
}

/** valid: it verifies; invalid: it does not; earlier_key: signed with a key rotated away since; none/system: no proof. */
export type ProofStatus = 'valid' | 'invalid' | 'earlier_key' | 'none' | 'system';

export interface LedgerEntryView extends ListedEntry {
  actor: string;
  data: Record<string, unknown>;
  proof: Record<string, unknown> | null;
  hash: string;
  prev_hash: string;
  /** The entry exactly as stored. */
  json: string;
  proof_status: ProofStatus;
  previous: number | null;
  next: number | null;
}

export const LEDGER_CSS = `.ledger{list-style:none;padding:0}.ledger li{padding:.35rem 0;border-bottom:1px solid #eee}
.ledger .seq{color:#666;margin-right:.4rem}.ledger .when,.at{color:#666;font-size:.85em}
.agent-id{font-size:.8em;color:#666}q.member{quotes:"\\201C" "\\201D";background:#f6f3ea}
.filters summary{cursor:pointer}.filters a{display:inline-block;margin:.1rem .4rem .1rem 0}
.proof-valid{color:#1b5e20}.proof-invalid{color:#b71c1c}.fields td:first-child{white-space:nowrap;color:#555}
details pre{overflow-x:auto;max-width:100%}`;

/** A ledger URL with the current filters and the given paging. */
function ledgerHref(filters: LedgerFilters, paging: Record<string, string | number> = {}): string {
  const query = new URLSearchParams();
  if (filters.type) query.set('type', filters.type);
  if (filters.actor) query.set('actor', filters.actor);
  if (filters.bookkeeping === 'shown') query.set('bookkeeping', 'shown');
  for (const [key, value] of Object.entries(paging)) query.set(key, String(value));
  const text = query.toString();
  return `/ledger${text ? `?${text}` : ''}`;
}

function namesOf(entry: ListedEntry): NameOf {
  return (agent_id) => ({ agent_id, handle: entry.names[agent_id] ?? null });
}

function filtersHtml(view: LedgerView): string {
  const { filters } = view;
  const shown: string[] = [];
  if (filters.type) shown.push(`only <code>${e(filters.type)}</code>`);
  if (view.actor_name) shown.push(`only by ${agentRef(view.actor_name)}`);
  const clear = shown.length > 0 ? ` · ${link('/ledger', 'show everything')}` : '';
  const types = KNOWN_EVENT_TYPES.map((type) =>
    type === filters.type ? `<strong>${e(type)}</strong>` : link(ledgerHref({ ...filters, type }), type),
  ).join(' ');
  const bookkeeping =
    filters.bookkeeping === 'shown'
      ? `Bookkeeping entries (${[...BOOKKEEPING_EVENTS].join(', ')}) are shown · ${link(ledgerHref({ ...filters, bookkeeping: 'hidden' }), 'hide them')}`
      : `${view.hidden_bookkeeping} bookkeeping ${view.hidden_bookkeeping === 1 ? 'entry' : 'entries'} (Proof of Machine challenges, AP records) left out of this page · ${link(ledgerHref({ ...filters, bookkeeping: 'shown' }), 'show them')}`;
  return `<p>${shown.length > 0 ? `Showing ${shown.join(', ')}${clear}.` : 'Showing every kind of entry.'} ${bookkeeping}.</p>
<details class="filters"><summary>Filter by event type</summary><p>${types}</p></details>`;
}

export function ledgerPage(frame: PageFrame, view: LedgerView): string {
  const rows = view.entries
    .map(
      (entry) =>
        `<li><a class="seq" href="/ledger/${entry.seq}">#${entry.seq}</a> ${sentenceHtml(entry.sentence, namesOf(entry))} <span class="when">${timeHtml(entry.at, frame.now_ms)}</span></li>`,
    )
    .join('\n');
  const paging = [
    view.newer !== null ? link(ledgerHref(view.filters, { after: view.newer }), 'Newer') : '',
    view.older !== null ? link(ledgerHref(view.filters, { before: view.older }), 'Older') : '',
  ].filter(Boolean);
  const searched = view.searched
    ? `<p>Searched entries ${view.searched.from} to ${view.searched.to} without filling a page; ${link(ledgerHref(view.filters, { before: view.searched.from }), 'search further back')}.</p>`
    : '';
  return page(
    frame,
    `<p>Everything the society did, newest first, as it stands on the public hash-chained ledger (${view.head.seq} entries). The raw chain and its recipe: ${link('/api/v1/ledger', '/api/v1/ledger')}; anyone can re-verify it with <code>tessera-agent verify</code>.</p>
${filtersHtml(view)}
${rows ? `<ol class="ledger">\n${rows}\n</ol>` : '<p>No entry here matches.</p>'}
${searched}${paging.length > 0 ? `<p>${paging.join(' · ')}</p>` : ''}`,
  );
}

const PROOF_SENTENCES: Record<ProofStatus, string> = {
  valid: '<span class="proof-valid">The signature verifies</span>: the actor signed exactly this request.',
  invalid:
    '<span class="proof-invalid">The signature does not verify</span> against the keys the ledger gave this agent.',
  earlier_key:
    'Signed with a key this agent has rotated away since; <code>tessera-agent verify</code> checks it with the keys in ledger order.',
  none: 'This entry carries no proof of its own: it follows the signed request just before it.',
  system: "This is the system's own entry: no member signed it.",
};

export function ledgerEntryPage(frame: PageFrame, view: LedgerEntryView): string {
  const fields = Object.entries(view.data)
    .map(
      ([key, value]) =>
        `<tr><td>${e(key)}</td><td>${e(typeof value === 'string' ? value : JSON.stringify(value))}</td></tr>`,
    )
    .join('');
  const proof = view.proof
    ? `<p>${e(String(view.proof.method))} <code>${e(String(view.proof.path))}</code>, nonce <code>${e(String(view.proof.nonce))}</code>.</p>`
    : '';
  const around = [
    view.previous !== null ? link(`/ledger/${view.previous}`, `Entry ${view.previous}`) : '',
    view.next !== null ? link(`/ledger/${view.next}`, `Entry ${view.next}`) : '',
    link(`/ledger?actor=${encodeURIComponent(view.actor)}`, "This actor's entries"),
    link(`/log/receipt/${view.seq}`, 'Its transparency-log receipt'),
    link(`/api/v1/ledger?from=${view.seq}&limit=1`, 'As JSON'),
  ].filter(Boolean);
  return page(
    frame,
    `<p class="sentence">${sentenceHtml(view.sentence, namesOf(view))}.</p>
<p class="when">${timeHtml(view.at, frame.now_ms)}; event <code>${e(view.event_type)}</code>.</p>
<h2>Proof</h2>
<p>${PROOF_SENTENCES[view.proof_status]}</p>
${proof}
<h2>Fields</h2>
<table class="fields"><tbody>${fields}</tbody></table>
<p>Hash <code>${e(view.hash)}</code>, after <code>${e(view.prev_hash)}</code>.</p>
<p>${around.join(' · ')}</p>
<details><summary>The entry exactly as stored</summary><pre>${e(view.json)}</pre></details>`,
  );
}
