import { canonicalJson, sha256Hex } from './canonical.js';
import { isoAt, type EpochMs } from './time.js';
import type { LedgerHead } from './state.js';

/** The signed request behind an entry, enough for anyone to re-check the signature. */
export interface Proof {
  method: string;
  path: string;
  nonce: string;
  /** The canonical (JCS) body that was signed; '' for a request without a body. */
  body: string;
  signature: string;
}

export interface LedgerEntry {
  seq: number;
  prev_hash: string;
  at: string;
  event_type: string;
  actor: string;
  data: Record<string, unknown>;
  proof?: Proof;
  hash: string;
}

/** An event as an apply function emits it, before it is placed on the chain. */
export interface LedgerEvent {
  event_type: string;
  actor: string;
  data: Record<string, unknown>;
}

export const LEDGER_RECIPE =
  'Each entry is {seq, prev_hash, at, event_type, actor, data, proof?, hash}. ' +
  'hash = lowercase hex SHA-256 of the UTF-8 RFC 8785 (JCS) serialisation of the entry without its hash field. ' +
  'prev_hash = the previous entry\'s hash; for seq 1 it is 64 zeros. ' +
  'proof, on the first entry a signed request produced, is {method, path, nonce, body, signature}: the signing string is ' +
  '"society-sig-v1\\n<METHOD>\\n<path and query>\\n<actor>\\n<nonce>\\n<hex SHA-256 of body>", and signature is its ' +
  'base64url ed25519 signature by the actor\'s primary key as registered earlier on this ledger ' +
  '(by data.pubkey itself on agent_registered, by the backup key on key_rotated). Entries are never rewritten or deleted.';

export function entryHash(entry: Omit<LedgerEntry, 'hash'> | LedgerEntry): string {
  const { hash: _ignored, ...unhashed } = entry as LedgerEntry;
  return sha256Hex(canonicalJson(unhashed));
}

/**
 * An entry placed on the chain, kept as the JSON it is served as: the canonical text
 * that was hashed, with the hash appended. Stored and served without re-encoding.
 */
export interface ChainedEntry {
  seq: number;
  hash: string;
  json: string;
}

/** Places an event on the chain after `head`; the caller advances its head to the result. */
export function chainEntry(head: LedgerHead, at_ms: EpochMs, event: LedgerEvent, proof?: Proof): ChainedEntry {
  const unhashed: Omit<LedgerEntry, 'hash'> = {
    seq: head.seq + 1,
    prev_hash: head.hash,
    at: isoAt(at_ms),
    event_type: event.event_type,
    actor: event.actor,
    data: event.data,
    ...(proof ? { proof } : {}),
  };
  const canonical = canonicalEntry(unhashed);
  const hash = sha256Hex(canonical);
  return { seq: unhashed.seq, hash, json: `${canonical.slice(0, -1)},"hash":"${hash}"}` };
}

const quote = JSON.stringify;

/**
 * The JCS text of an unhashed entry, written around its fixed envelope: the keys in
 * their sorted order, strings through JSON.stringify (whose escapes are the ones
 * RFC 8785 prescribes), and only `data` through the general canonicaliser. It is the
 * hot path of every append; a property test holds it equal to canonicalJson(entry).
 */
export function canonicalEntry(entry: Omit<LedgerEntry, 'hash'>): string {
  const proof = entry.proof
    ? `,"proof":{"body":${quote(entry.proof.body)},"method":${quote(entry.proof.method)},"nonce":${quote(entry.proof.nonce)},"path":${quote(entry.proof.path)},"signature":${quote(entry.proof.signature)}}`
    : '';
  return `{"actor":${quote(entry.actor)},"at":${quote(entry.at)},"data":${canonicalJson(entry.data)},"event_type":${quote(entry.event_type)},"prev_hash":${quote(entry.prev_hash)}${proof},"seq":${entry.seq}}`;
}
