import type {
  InclusionPath,
  LedgerEntryView,
  LedgerSearch,
  LedgerView,
  ListedEntry,
  ProofStatus,
} from '../../../render/pages/ledger_pages.js';
import {
  BOOKKEEPING_EVENTS,
  KNOWN_EVENT_TYPES,
  sentenceOf,
  type SentenceEntry,
} from '../../../render/ledger_sentences.js';
import { ownValue, type ReadContext, sha256Hex } from '../../../engine/index.js';
import { signingString } from '../../../client/protocol.js';
import type { WireEntry } from '../../../client/ledger_check.js';
import { SignatureVerifier } from '../../signature_verifier.js';
import { nameOf } from './names.js';
import { page_size } from './paging.js';
import { ledgerIndexOf } from './ledger_index.js';
import { lowerBound } from '../../../engine/index.js';
import { inclusionPathOf } from './inclusion_path.js';

/**
 * Entries one request reads at most while looking for a page of filtered ones: a filter
 * on a long ledger answers what it found so far and where to go on, instead of reading
 * the whole ledger in one request. With the index (ledger_index.ts) a filter reads only
 * the entries of its type or actor, so this is reached only past the index's end.
 */
export const ledger_scan_max = 5_000;

export interface LedgerArgs {
  before?: number;
  after?: number;
  type?: string;
  actor?: string;
  /** Only entries about this motion (a filter the index does not hold: the scan's bound applies). */
  motion?: string;
  bookkeeping?: 'shown' | 'hidden';
  /** The search box: an agent's handle or id, an event type, a motion id, or a seq. */
  q?: string;
}

/** What the search box's words name, looked up in the state: at most one thing, most specific first. */
export function searchFor(context: ReadContext, q: string): { seq: number } | LedgerSearch['found'] {
  const { state } = context;
  if (/^\d+$/.test(q)) {
    const seq = Number(q);
    return seq >= 1 && seq <= context.ledger.head().seq ? { seq } : null;
  }
  if (KNOWN_EVENT_TYPES.includes(q)) return { type: q };
  if (state.agents.has(q) || q === 'system') return { actor: q };
  const by_handle = state.agent_by_handle.get(q.toLowerCase());
  if (by_handle !== undefined) return { actor: by_handle };
  if (ownValue(state.governance.motions, q)) return { motion: q };
  return null;
}

/**
 * Where the search box sends a seq: straight to that entry's page, as a block explorer
 * goes to a transaction (the explorer page would only show it as its first row).
 */
export function ledgerSearchRedirect(context: ReadContext, args: LedgerArgs): string | null {
  if (args.q === undefined) return null;
  const found = searchFor(context, args.q);
  return found !== null && 'seq' in found ? `/ledger/${found.seq}` : null;
}

/** The explorer's arguments once the search box's words are resolved into a filter (a seq is redirected before this). */
function resolveSearch(context: ReadContext, args: LedgerArgs): { args: LedgerArgs; search: LedgerSearch | null } {
  if (args.q === undefined) return { args, search: null };
  const found = searchFor(context, args.q);
  if (found === null || 'seq' in found) return { args: {}, search: { q: args.q, found: null } };
  return { args: found, search: { q: args.q, found } };
}

/** The seqs a page may show, newest first from `start`: every one past the index's end, then the index's candidates. */
function* downward(start: number, indexed_to: number, candidates: readonly number[] | undefined): Generator<number> {
  for (let seq = start; seq > indexed_to && seq >= 1; seq--) yield seq;
  const below = Math.min(start, indexed_to);
  if (!candidates) for (let seq = below; seq >= 1; seq--) yield seq;
  else for (let at = lowerBound(candidates, below + 1) - 1; at >= 0; at--) yield candidates[at]!;
}

/** The seqs a page may show, oldest first from `start`: the index's candidates, then every one past the index's end. */
function* upward(start: number, indexed_to: number, head: number, candidates: readonly number[] | undefined) {
  if (!candidates) for (let seq = start; seq <= Math.min(indexed_to, head); seq++) yield seq;
  else for (let at = lowerBound(candidates, start); at < candidates.length; at++) yield candidates[at]!;
  for (let seq = Math.max(start, indexed_to + 1); seq <= head; seq++) yield seq;
}

/**
 * The ledger explorer's page: up to page_size entries, newest first, that pass the
 * filters (an event type, an actor), older than `before` or newer than `after`.
 * Bookkeeping entries are left out unless asked for, and counted.
 */
export function ledgerView(context: ReadContext, asked: LedgerArgs): LedgerView {
  const { ledger } = context;
  const { args, search } = resolveSearch(context, asked);
  const head = ledger.head();
  const show_bookkeeping =
    args.bookkeeping === 'shown' || (args.type !== undefined && BOOKKEEPING_EVENTS.has(args.type));
  const wanted = (entry: WireEntry) =>
    (args.type === undefined || entry.event_type === args.type) &&
    (args.actor === undefined || entry.actor === args.actor) &&
    (args.motion === undefined || entry.data.motion_id === args.motion || entry.data.motion === args.motion);
  const filters = {
    ...(args.type !== undefined ? { type: args.type } : {}),
    ...(args.actor ? { actor: args.actor } : {}),
  };
  const index = ledgerIndexOf(ledger);
  const filtered = args.type !== undefined || args.actor !== undefined;
  const indexed_to = filtered ? Math.min(index.catchUp(context.state.ledger_revision), head.seq) : 0;
  const candidates = filtered ? index.candidates(filters) : undefined;
  const found: WireEntry[] = [];
  let hidden = 0;
  let scanned = 0;
  // Newer pages read upward from `after`; every other page reads downward from `before` (or the head).
  const going_up = args.after !== undefined;
  const start = going_up ? args.after! + 1 : Math.min(head.seq, (args.before ?? head.seq + 1) - 1);
  const seqs = going_up ? upward(start, indexed_to, head.seq, candidates) : downward(start, indexed_to, candidates);
  let last_read: number | undefined;
  let exhausted = true;
  for (const seq of seqs) {
    if (found.length === page_size || scanned >= ledger_scan_max) {
      exhausted = false;
      break;
    }
    const [json] = ledger.page(seq, 1);
    if (json === undefined) break;
    scanned += 1;
    last_read = seq;
    const entry = JSON.parse(json) as WireEntry;
    if (!wanted(entry)) continue;
    if (!show_bookkeeping && BOOKKEEPING_EVENTS.has(entry.event_type)) {
      hidden += 1;
      continue;
    }
    found.push(entry);
  }
  const entries = going_up ? found.reverse() : found;
  // The range looked through: every seq in it was read or known (by the index) not to match.
  const low = going_up ? start : exhausted ? 1 : last_read!;
  const high = going_up ? (exhausted ? head.seq : last_read!) : start;
  return {
    head,
    filters: {
      ...filters,
      ...(args.motion ? { motion: args.motion } : {}),
      bookkeeping: show_bookkeeping ? 'shown' : 'hidden',
    },
    entries: entries.map((entry) => listed(context, entry)),
    older: low > 1 ? low : null,
    newer: high < head.seq ? high : null,
    hidden_bookkeeping: hidden,
    searched: found.length < page_size && scanned >= ledger_scan_max ? { from: low, to: high } : null,
    actor_name: args.actor ? nameOf(context.state, args.actor) : null,
    motion_title: args.motion ? (ownValue(context.state.governance.motions, args.motion)?.title ?? null) : null,
    search,
  };
}

export function listed(context: ReadContext, entry: WireEntry): ListedEntry {
  const sentence = sentenceOf(entry as SentenceEntry);
  return { seq: entry.seq, at: entry.at, event_type: entry.event_type, sentence, ...namesIn(context, sentence) };
}

/** The handles of the agents and the titles of the motions a sentence names, looked up once for the renderers. */
function namesIn(context: ReadContext, sentence: ListedEntry['sentence']): Pick<ListedEntry, 'names' | 'titles'> {
  const names: Record<string, string | null> = {};
  const titles: Record<string, string | null> = {};
  for (const part of sentence) {
    if (typeof part !== 'object') continue;
    if ('agent' in part) names[part.agent] = nameOf(context.state, part.agent).handle;
    if ('motion' in part) titles[part.motion] = ownValue(context.state.governance.motions, part.motion)?.title ?? null;
  }
  return { names, titles };
}

const verifier = new SignatureVerifier(1_000);

/**
 * Whether an entry's proof verifies, checked as the page is made: the signing string
 * rebuilt from the proof, and the signature checked against the keys the ledger gave
 * the actor (the registered key, the current primary and backup keys). A key rotated
 * away since is no longer in the state: the page says so, and the full check
 * (tessera-agent verify) walks the ledger's keys in order.
 */
export function proofStatus(context: ReadContext, entry: WireEntry): ProofStatus {
  const { proof } = entry;
  if (!proof) return entry.actor === 'system' ? 'system' : 'none';
  const body_sha256 = 'body' in proof && typeof proof.body === 'string' ? sha256Hex(proof.body) : proof.body_sha256;
  if (typeof body_sha256 !== 'string') return 'invalid';
  const message = signingString({
    method: proof.method,
    path: proof.path,
    agent_id: entry.actor,
    nonce: proof.nonce,
    body_sha256,
  });
  const agent = context.state.agents.get(entry.actor);
  const keys = [entry.data.pubkey, agent?.pubkey, agent?.backup_pubkey].filter(
    (key): key is string => typeof key === 'string',
  );
  if (keys.some((key) => verifier.verify(key, message, proof.signature))) return 'valid';
  return agent && agent.key_generation > 0 ? 'earlier_key' : 'invalid';
}

/** Whether the entry at seq carries a member's signed request. */
function signedEntry(context: ReadContext, seq: number): boolean {
  const [json] = context.ledger.page(seq, 1);
  return json !== undefined && (JSON.parse(json) as WireEntry).proof != null;
}

export function ledgerEntryView(context: ReadContext, { seq }: { seq: number }): LedgerEntryView | null {
  const { ledger } = context;
  const [json] = ledger.page(seq, 1);
  if (!json) return null;
  const entry = JSON.parse(json) as WireEntry;
  const head = ledger.head();
  return {
    ...listed(context, entry),
    actor: entry.actor,
    data: entry.data,
    proof: entry.proof ? { ...entry.proof } : null,
    hash: entry.hash,
    prev_hash: entry.prev_hash,
    json,
    proof_status: proofStatus(context, entry),
    signed_before: seq > 1 && signedEntry(context, seq - 1) ? seq - 1 : null,
    previous: seq > 1 ? seq - 1 : null,
    next: seq < head.seq ? seq + 1 : null,
    inclusion: receiptPath(context, seq, json),
  };
}

/** The entry's receipt drawn as its path to the newest checkpoint's root; null before a checkpoint covers it. */
function receiptPath(context: ReadContext, seq: number, entry_json: string): InclusionPath | null {
  const receipt = context.host.receipt(seq, entry_json);
  return receipt === undefined ? null : inclusionPathOf(receipt);
}
