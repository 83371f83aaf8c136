import type { LedgerEntryView, LedgerView, ListedEntry, ProofStatus } from '../../../render/pages/ledger_pages.js';
import { BOOKKEEPING_EVENTS, sentenceOf, type SentenceEntry } from '../../../render/ledger_sentences.js';
import { type ReadContext, sha256Hex } from '../../../engine/index.js';
import { signingString } from '../../../client/protocol.js';
import type { WireEntry } from '../../../client/ledger_check.js';
import { SignatureVerifier } from '../../signature_verifier.js';
import { nameOf } from './names.js';
import { page_size } from './paging.js';

/**
 * Entries one request reads at most while looking for a page of filtered ones: a rare
 * filter on a long ledger answers what it found so far and where to go on, instead of
 * reading the whole ledger in one request.
 */
export const ledger_scan_max = 5_000;

/** What the store is read in, while scanning. */
const scan_step = 250;

export interface LedgerArgs {
  before?: number;
  after?: number;
  type?: string;
  actor?: string;
  bookkeeping?: 'shown' | 'hidden';
}

/**
 * The ledger explorer's page: up to page_size entries, newest first, that pass the
 * filters (an event type, an actor), older than `before` or newer than `after`.
 * Bookkeeping entries are left out unless asked for, and counted.
 */
export function ledgerView(context: ReadContext, args: LedgerArgs): LedgerView {
  const { ledger } = context;
  const head = ledger.head();
  const show_bookkeeping =
    args.bookkeeping === 'shown' || (args.type !== undefined && BOOKKEEPING_EVENTS.has(args.type));
  const wanted = (entry: WireEntry) =>
    (args.type === undefined || entry.event_type === args.type) &&
    (args.actor === undefined || entry.actor === args.actor);
  const found: WireEntry[] = [];
  let hidden = 0;
  let scanned = 0;
  // Newer pages read upward from `after`; every other page reads downward from `before` (or the head).
  const upward = args.after !== undefined;
  let cursor = upward ? args.after! + 1 : Math.min(head.seq, (args.before ?? head.seq + 1) - 1);
  while (found.length < page_size && scanned < ledger_scan_max && cursor >= 1 && cursor <= head.seq) {
    const count = Math.min(scan_step, upward ? head.seq - cursor + 1 : cursor);
    const from = upward ? cursor : cursor - count + 1;
    const jsons = ledger.page(from, count);
    const step = upward ? jsons : jsons.reverse();
    let taken = 0;
    for (const json of step) {
      taken += 1;
      const entry = JSON.parse(json) as WireEntry;
      if (!wanted(entry)) continue;
      if (!show_bookkeeping && BOOKKEEPING_EVENTS.has(entry.event_type)) {
        hidden += 1;
        continue;
      }
      found.push(entry);
      if (found.length === page_size) break;
    }
    scanned += taken;
    cursor = upward ? cursor + taken : cursor - taken;
  }
  const entries = upward ? found.reverse() : found;
  // The range read: from the lowest seq looked at to the highest.
  const low = upward ? args.after! + 1 : cursor + 1;
  const high = upward ? cursor - 1 : Math.min(head.seq, (args.before ?? head.seq + 1) - 1);
  return {
    head,
    filters: {
      ...(args.type ? { type: args.type } : {}),
      ...(args.actor ? { actor: args.actor } : {}),
      bookkeeping: show_bookkeeping ? 'shown' : 'hidden',
    },
    entries: entries.map((entry) => listed(context, entry)),
    older: low > 1 ? low : null,
    newer: high < head.seq ? high : null,
    hidden_bookkeeping: hidden,
    searched: found.length < page_size && scanned >= ledger_scan_max ? { from: low, to: high } : null,
    actor_name: args.actor ? nameOf(context.state, args.actor) : null,
  };
}

function listed(context: ReadContext, entry: WireEntry): ListedEntry {
  const sentence = sentenceOf(entry as SentenceEntry);
  return { seq: entry.seq, at: entry.at, event_type: entry.event_type, sentence, names: namesIn(context, sentence) };
}

/** The handles of the agents a sentence names, looked up once for the renderers. */
function namesIn(context: ReadContext, sentence: ListedEntry['sentence']): Record<string, string | null> {
  const names: Record<string, string | null> = {};
  for (const part of sentence)
    if (typeof part === 'object' && 'agent' in part) names[part.agent] = nameOf(context.state, part.agent).handle;
  return names;
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
    previous: seq > 1 ? seq - 1 : null,
    next: seq < head.seq ? seq + 1 : null,
  };
}
