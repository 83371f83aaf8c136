import { codeBlock, page, type PageFrame } from '../layout.js';
import { BOOKKEEPING_EVENTS, KNOWN_EVENT_TYPES, type SentencePart } from '../ledger_sentences.js';
import { sentenceHtml, type NameOf, type TitleOf } from '../sentence_text.js';
import { timeHtml } from '../time.js';
import { agentRef, dataListHtml, e, link, member, motionLink, type AgentName } from './html_bits.js';
import { plural, titleOr } from '../words.js';

/** One entry of the explorer: its sentence, and the handles of the agents it names. */
export interface ListedEntry {
  seq: number;
  at: string;
  event_type: string;
  sentence: SentencePart[];
  names: Record<string, string | null>;
  /** The titles of the motions it names (null: not known). */
  titles: Record<string, string | null>;
}

export interface LedgerFilters {
  type?: string;
  actor?: string;
  motion?: string;
  bookkeeping: 'shown' | 'hidden';
}

/** The search box's words and what they name: an entry, or a filter of the explorer; null for nothing. */
export interface LedgerSearch {
  q: string;
  /** What the words name (a seq never gets here: the box sends it to the entry's page). */
  found: { type: string } | { actor: string } | { motion: string } | null;
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
  /** The title of the motion the page is filtered to. */
  motion_title: string | null;
  search: LedgerSearch | null;
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
  /** The entry just before, when it is a signed request (an unsigned entry follows from it). */
  signed_before: number | null;
  previous: number | null;
  next: number | null;
  /** The transparency-log receipt as a path from the entry's leaf to a signed root. */
  inclusion: InclusionPath | null;
}

/** An entry's receipt as a page draws it: from the entry's leaf hash, one step per proof hash, up to the checkpoint's root. */
export interface InclusionPath {
  leaf_index: number;
  /** SHA-256(0x00 || the entry's bytes), base64 as in the checkpoint. */
  leaf_hash: string;
  steps: { sibling: string; sibling_side: 'left' | 'right'; parent: string }[];
  checkpoint: { origin: string; size: number; root_hash: string };
  /** Whether the last step's hash is the checkpoint's root (it always is for the log's own receipt). */
  reaches_root: boolean;
}

export const LEDGER_CSS = `.ledger{list-style:none;padding:0}.ledger li{padding:.35rem 0;border-bottom:1px solid #eee}
.ledger .seq{color:#666;margin-right:.4rem}.ledger .when,.at{color:#666;font-size:.85em}
.agent-id{font-size:.8em;color:#666}q.member{quotes:"\\201C" "\\201D";background:#f6f3ea}
.filters summary{cursor:pointer}.filters a{display:inline-block;margin:.1rem .4rem .1rem 0}
.proof-valid{color:#1b5e20}.proof-invalid{color:#b71c1c}.fields td:first-child{white-space:nowrap;color:#555}
details pre{overflow-x:auto;max-width:100%}.data{margin:.2rem 0;padding-left:1.2rem}.data .key{color:#555}
.motion-id{font-size:.85em}.search{display:flex;flex-wrap:wrap;gap:.4rem;align-items:center;margin:.6rem 0}
.search input{flex:1 1 14rem;min-width:0;padding:.3rem;font:inherit}.search button{padding:.3rem .8rem;font:inherit}
.hashes code{overflow-wrap:anywhere}
.inclusion{list-style:none;padding:0 0 0 .9rem;border-left:3px solid #2f6fb0;margin:.6rem 0}
.inclusion li{margin:.35rem 0}.inclusion code{overflow-wrap:anywhere}.inclusion .pair code{padding:0 .25rem;border:1px solid #ccc}
.inclusion .pair .running{background:#e8f0fa;border-color:#2f6fb0}.inclusion .root{font-weight:600}`;

/** A ledger URL with the current filters and the given paging. */
function ledgerHref(filters: LedgerFilters, paging: Record<string, string | number> = {}): string {
  const query = new URLSearchParams();
  if (filters.type) query.set('type', filters.type);
  if (filters.actor) query.set('actor', filters.actor);
  if (filters.motion) query.set('motion', filters.motion);
  if (filters.bookkeeping === 'shown') query.set('bookkeeping', 'shown');
  for (const [key, value] of Object.entries(paging)) query.set(key, String(value));
  const text = query.toString();
  return `/ledger${text ? `?${text}` : ''}`;
}

function namesOf(entry: ListedEntry): NameOf {
  return (agent_id) => ({ agent_id, handle: entry.names[agent_id] ?? null });
}

function titlesOf(entry: ListedEntry): TitleOf {
  return (motion_id) => entry.titles[motion_id] ?? null;
}

/** An entry's sentence as HTML, its agents by handle and its motions by title. */
export function entrySentenceHtml(entry: ListedEntry): string {
  return sentenceHtml(entry.sentence, namesOf(entry), titlesOf(entry));
}

/** The search box: one GET field, checked again by the page's query schema (a bad value is the 422 page). */
function searchFormHtml(search: LedgerSearch | null): string {
  const value = search ? ` value="${e(search.q)}"` : '';
  return `<form class="search" role="search" method="get" action="/ledger">
<label for="ledger-q">Search the ledger</label>
<input id="ledger-q" name="q" type="search"${value} required maxlength="64" pattern="[A-Za-z0-9_\\-]+" placeholder="handle, agent id, event type, motion id or seq" aria-describedby="ledger-q-help">
<button type="submit">Search</button>
<span id="ledger-q-help" class="at">An agent's handle or id, an event type such as <code>vote_cast</code>, a motion id, or an entry's number.</span>
</form>`;
}

/** What the search found, in a sentence (a filter it became is told by the filters line). */
function searchResultHtml(search: LedgerSearch | null): string {
  if (search === null) return '';
  if (search.found === null)
    return `<p class="search-result">Nothing on the ledger goes by <q class="member">${member(search.q)}</q>: no agent, event type, motion or entry by that name.</p>`;
  return '';
}

function filtersHtml(view: LedgerView): string {
  const { filters } = view;
  const shown: string[] = [];
  if (filters.type) shown.push(`only <code>${e(filters.type)}</code>`);
  if (view.actor_name) shown.push(`only by ${agentRef(view.actor_name)}`);
  if (filters.motion)
    shown.push(
      `only about ${view.motion_title === null ? '' : `${member(titleOr(view.motion_title))} `}${motionLink(filters.motion)}`,
    );
  const clear = shown.length > 0 ? ` · ${link('/ledger', 'show everything')}` : '';
  const types = KNOWN_EVENT_TYPES.map((type) =>
    type === filters.type ? `<strong>${e(type)}</strong>` : link(ledgerHref({ ...filters, type }), type),
  ).join(' ');
  const bookkeeping =
    filters.bookkeeping === 'shown'
      ? `Bookkeeping entries (${[...BOOKKEEPING_EVENTS].join(', ')}) are shown · ${link(ledgerHref({ ...filters, bookkeeping: 'hidden' }), 'hide them')}`
      : `${plural(view.hidden_bookkeeping, 'bookkeeping entry', 'bookkeeping entries')} (Proof of Machine challenges, AP records) left out of this page · ${link(ledgerHref({ ...filters, bookkeeping: 'shown' }), 'show them')}`;
  return `<p>${shown.length > 0 ? `Showing ${shown.join(', ')}${clear}.` : 'Showing every kind of entry.'} ${bookkeeping}.</p>
<details class="filters"><summary>Filter by event type</summary><p>${types}</p></details>`;
}

export function ledgerPage(frame: PageFrame, view: LedgerView): string {
  const rows = view.entries
    .map(
      (entry) =>
        `<li><a class="seq" href="/ledger/${entry.seq}">#${entry.seq}</a> ${entrySentenceHtml(entry)} <span class="when">${timeHtml(entry.at, frame.now_ms)}</span></li>`,
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
${searchFormHtml(view.search)}
${searchResultHtml(view.search)}${filtersHtml(view)}
${rows ? `<ol class="ledger">\n${rows}\n</ol>` : '<p>No entry here matches.</p>'}
${searched}${paging.length > 0 ? `<p>${paging.join(' · ')}</p>` : ''}`,
  );
}

const PROOF_SENTENCES: Record<Exclude<ProofStatus, 'none'>, string> = {
  valid: '<span class="proof-valid">The signature verifies</span>: the actor signed exactly this request.',
  invalid:
    '<span class="proof-invalid">The signature does not verify</span> against the keys the ledger gave this agent.',
  earlier_key:
    'Signed with a key this agent has rotated away since; <code>tessera-agent verify</code> checks it with the keys in ledger order.',
  system: "This is the system's own entry: no member signed it.",
};

/** Whether and how the entry is signed; an unsigned one names the signed request it follows, if one is just before it. */
function proofSentence(view: LedgerEntryView): string {
  if (view.proof_status !== 'none') return PROOF_SENTENCES[view.proof_status];
  if (view.signed_before === null)
    return 'This entry carries no proof of its own: the engine wrote it (at the founding, or on its own schedule), not a signed request.';
  return `This entry carries no proof of its own: it follows the signed request just before it, ${link(`/ledger/${view.signed_before}`, `entry ${view.signed_before}`)}.`;
}

/** The chain around the entry: its hash, and the previous entry's (linked to it). */
function hashesHtml(view: LedgerEntryView): string {
  const previous =
    view.previous === null
      ? `<code>${e(view.prev_hash)}</code> (the chain's start)`
      : `<a href="/ledger/${view.previous}"><code>${e(view.prev_hash)}</code></a> (entry ${view.previous})`;
  return `<ul class="hashes"><li>Hash <code>${e(view.hash)}</code></li><li>After ${previous}</li></ul>`;
}

/** Hashes in the drawn path are cut to this many characters; each keeps the whole in its title. */
const hash_chars_shown = 12;

function shortHash(hash: string, role: string): string {
  return `<code class="${role}" title="${e(hash)}">${e(hash.slice(0, hash_chars_shown))}…</code>`;
}

/**
 * The receipt drawn from the entry's leaf up to the signed root: each step hashes the
 * running hash (blue) beside the proof's next hash, in the order the tree has them, as
 * RFC 6962 does. A reader sees why one leaf and a few hashes pin the entry in the log.
 */
function inclusionHtml(view: LedgerEntryView): string {
  const path = view.inclusion;
  if (path === null)
    return '<p>No signed checkpoint covers this entry yet: its receipt follows with the next checkpoint.</p>';
  const steps = path.steps.map((step, at) => {
    const running = shortHash(at === 0 ? path.leaf_hash : path.steps[at - 1]!.parent, 'running');
    const sibling = shortHash(step.sibling, 'sibling');
    const pair = step.sibling_side === 'left' ? `${sibling} ${running}` : `${running} ${sibling}`;
    return `<li>Step ${at + 1}: <span class="pair">${pair}</span> hash to ${shortHash(step.parent, 'parent')}</li>`;
  });
  const root = path.reaches_root
    ? `<li class="root">That is the checkpoint's root <code>${e(path.checkpoint.root_hash)}</code>: the entry is in the log.</li>`
    : `<li class="root proof-invalid">That is not the checkpoint's root <code>${e(path.checkpoint.root_hash)}</code>.</li>`;
  return `<p>Leaf ${path.leaf_index} of the tree of ${plural(path.checkpoint.size, 'entry', 'entries')} that the checkpoint signed as <code>${e(path.checkpoint.origin)}</code> covers. From the entry's leaf hash, each step hashes the running hash (blue) with the receipt's next hash, in the tree's order; ${plural(path.steps.length, 'step')} reach the root.</p>
<ol class="inclusion" aria-label="The inclusion path from the leaf to the root">
<li>The leaf: SHA-256 of a zero byte and the entry, <code>${e(path.leaf_hash)}</code></li>
${steps.join('\n')}${steps.length > 0 ? '\n' : ''}${root}
</ol>`;
}

export function ledgerEntryPage(frame: PageFrame, view: LedgerEntryView): string {
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
    `<p class="sentence">${entrySentenceHtml(view)}.</p>
<p class="when">${timeHtml(view.at, frame.now_ms)}; event ${link(`/ledger?type=${view.event_type}`, view.event_type)}.</p>
<h2>Proof</h2>
<p>${proofSentence(view)}</p>
${proof}
<h2>Fields</h2>
${dataListHtml(view.data)}
<h2>Its place in the chain</h2>
${hashesHtml(view)}
<h2>In the transparency log</h2>
${inclusionHtml(view)}
<p>${around.join(' · ')}</p>
<details><summary>The entry exactly as stored</summary>${codeBlock('The entry exactly as stored', view.json)}</details>`,
  );
}
