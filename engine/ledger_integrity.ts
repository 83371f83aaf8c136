import { canonicalJson, sha256Hex } from './canonical.js';
import type { ChainedEntry } from './ledger.js';
import { GENESIS_PREV_HASH, type LedgerHead } from './state.js';

/**
 * A stored ledger entry that cannot be what the society wrote: edited, missing,
 * reordered or produced by no logged act. `seq` is the first entry found wrong;
 * everything before it was checked and is sound.
 */
export class StoreIntegrityError extends Error {
  override name = 'StoreIntegrityError';
  constructor(
    readonly seq: number,
    readonly reason: string,
  ) {
    super(`ledger entry seq ${seq}: ${reason}`);
  }
}

/** A stored entry as the store holds it: the served JSON under its seq. */
export interface StoredEntry {
  seq: number;
  json: string;
}

const HASH_FIELD = ',"hash":"';
/** `,"hash":"<64 hex>"}`: what chainEntry appends to the canonical text in place of its closing brace. */
const HASH_SUFFIX_LENGTH = HASH_FIELD.length + 64 + 2;
const LINK_FIELD = '"prev_hash":"';

/**
 * The hash a stored entry's text ends with (chainEntry appends it), read as it is:
 * storedEntryProblem is what checks that it is one.
 */
export function storedHashOf(json: string): string {
  return json.slice(-(HASH_SUFFIX_LENGTH - HASH_FIELD.length), -2);
}
const HEX64 = /^[0-9a-f]{64}$/;

/**
 * What is wrong with one stored entry on its own, given the hash of the one before it.
 * A stored entry is the canonical text that was hashed with `,"hash":"<hash>"}` put in
 * place of its closing brace (chainEntry), so it is checked as text, without parsing:
 * the hash must be the SHA-256 of that canonical text, the text must end with its
 * own seq (the last key in JCS order) and link to the previous entry's hash. Quotes
 * inside JSON strings are escaped, so the last `"prev_hash":"` in the text is the
 * entry's own. Parsing and re-serialising every entry would cost three times as much;
 * the byte-for-byte comparison with the regenerated entry is the stricter check where
 * the log is replayed. Undefined when it is sound.
 */
export function storedEntryProblem(seq: number, json: string, prev_hash: string): string | undefined {
  const suffix_at = json.length - HASH_SUFFIX_LENGTH;
  const hash = storedHashOf(json);
  if (suffix_at < 0 || !json.startsWith(HASH_FIELD, suffix_at) || !json.endsWith('"}') || !HEX64.test(hash))
    return 'the stored text does not end with its hash';
  const canonical = `${json.slice(0, suffix_at)}}`;
  if (!canonical.endsWith(`,"seq":${seq}}`)) return `stored under seq ${seq}, but its text names another seq`;
  const link_at = canonical.lastIndexOf(LINK_FIELD) + LINK_FIELD.length;
  if (link_at < LINK_FIELD.length || canonical.slice(link_at, link_at + 64) !== prev_hash)
    return `prev_hash does not link to the hash of entry ${seq - 1} (entry ${seq - 1} or this one was rewritten)`;
  if (sha256Hex(canonical) !== hash) return "hash is not the SHA-256 of the entry's content (the content was edited)";
  return undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Checks stored entries 1..through_seq in order, each on its own and as links of one
 * chain from the genesis hash; returns the head at through_seq. Throws
 * StoreIntegrityError at the first entry that is missing or wrong.
 */
export function checkStoredChain(
  entries: Iterable<StoredEntry>,
  through_seq: number,
  on_checked?: (seq: number) => void,
): LedgerHead {
  let head: LedgerHead = { seq: 0, hash: GENESIS_PREV_HASH };
  if (through_seq <= 0) return head;
  for (const { seq, json } of entries) {
    if (seq !== head.seq + 1)
      throw new StoreIntegrityError(head.seq + 1, `missing from the store (the next stored entry is seq ${seq})`);
    const problem = storedEntryProblem(seq, json, head.hash);
    if (problem) throw new StoreIntegrityError(seq, problem);
    head = { seq, hash: storedHashOf(json) };
    on_checked?.(seq);
    if (seq === through_seq) return head;
  }
  throw new StoreIntegrityError(head.seq + 1, 'missing from the store');
}

/**
 * An entry regenerated from the log against the stored one: they must be the same
 * text byte for byte. An edit shows here whether or not its hash was recomputed,
 * since the regenerated entry comes from the log and the previous regenerated hash.
 */
export function regeneratedEntryProblem(
  stored_json: string | undefined,
  regenerated: ChainedEntry,
): string | undefined {
  if (stored_json === regenerated.json) return undefined;
  if (stored_json === undefined) return 'missing from the store, though the log produces it';
  let stored: Record<string, unknown>;
  try {
    stored = JSON.parse(stored_json) as Record<string, unknown>;
    if (!isObject(stored)) throw new Error('not an object');
  } catch {
    return 'the stored text is not a JSON object; the log produces a different entry';
  }
  const expected = JSON.parse(regenerated.json) as Record<string, unknown>;
  const keys = [...new Set([...Object.keys(expected), ...Object.keys(stored)])].sort();
  const differing = keys.filter((key) => !sameJson(stored[key], expected[key]));
  if (differing.length === 0) return 'the stored text is not the canonical text the log produces';
  const hash_note = differing.includes('hash')
    ? storedEntryProblem(regenerated.seq, stored_json, String(stored.prev_hash)) === undefined
      ? ' (its stored hash was recomputed to match the edit)'
      : ''
    : ' (its stored hash is the original one)';
  return `the stored entry differs from the one its logged act produces in ${differing.join(', ')}${hash_note}`;
}

function sameJson(a: unknown, b: unknown): boolean {
  if (a === undefined || b === undefined) return a === b;
  try {
    return canonicalJson(a) === canonicalJson(b);
  } catch {
    return false;
  }
}
