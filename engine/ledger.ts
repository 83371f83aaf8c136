import { canonicalJson, sha256Hex } from './canonical.js';
import { invariant } from './invariant.js';
import { isoAt, type EpochMs } from './time.js';
import type { LedgerHead } from './state.js';
import type { EventType } from './events/event_catalogue.js';

/** The signed request behind an entry, enough for anyone to re-check the signature. */
export interface Proof {
  method: string;
  path: string;
  nonce: string;
  /** The canonical (JCS) body that was signed; '' for a request without a body. */
  body: string;
  signature: string;
}

/**
 * A proof that must not republish what was signed (a refused Bedrock filing): the
 * body is replaced by its SHA-256, the very value on the signing string's last line,
 * so the signature still checks while the refused text stays off the public ledger.
 */
export interface DigestProof {
  method: string;
  path: string;
  nonce: string;
  /** Lowercase hex SHA-256 of the canonical body that was signed. */
  body_sha256: string;
  signature: string;
}

/** A proof as an entry carries it: the signed body itself, or its digest. */
export type LedgerProof = Proof | DigestProof;

/** How the signed request appears on the ledger: 'body' as it was signed, 'digest' without its body. */
export type ProofForm = 'body' | 'digest';

export function ledgerProof(proof: Proof, form: ProofForm): LedgerProof {
  if (form === 'body') return proof;
  const { body, ...signed } = proof;
  return { ...signed, body_sha256: sha256Hex(body) };
}

/**
 * The most UTF-8 bytes an entry may take as it is served (ChainedEntry.json, hash
 * included). The transparency log's entry bundles (C2SP tlog-tiles) prefix every
 * entry with a 16-bit length, so 65,535 is the hard ceiling; 535 bytes under it leave
 * room for the envelope to grow a field without the audit of every act's largest
 * entry (docs/protocol.md) having to be redone at the ceiling itself. An entry over it
 * is a bug in the limits, never a member's doing: chainEntry refuses to chain it.
 */
export const LEDGER_ENTRY_BYTES_MAX = 65_000;

/**
 * The most UTF-8 bytes a signed request's proof may take in its entry (its canonical
 * JSON: the signed body escaped a second time, path, nonce and signature). A request
 * over it is refused PAYLOAD_TOO_LARGE before it is applied. The rest of any entry,
 * its envelope and the data an act adds (at most about 12 kB: a restore drill's
 * 2,000-character detail at 6 bytes a control character; a signed act's data repeats
 * at most a 2,000-character reason, 6 kB), then fits in LEDGER_ENTRY_BYTES_MAX, and so
 * do the motion changes an enactment repeats: they were inside a filing's proof.
 */
export const LEDGER_PROOF_BYTES_MAX = 48_000;

/** The UTF-8 size of a proof as an entry carries it. */
export function ledgerProofBytes(proof: LedgerProof): number {
  return Buffer.byteLength(canonicalProof(proof), 'utf8');
}

export interface LedgerEntry {
  seq: number;
  prev_hash: string;
  at: string;
  event_type: string;
  actor: string;
  data: Record<string, unknown>;
  proof?: LedgerProof;
  hash: string;
}

/** An event as an apply function emits it, before it is placed on the chain: only a type the event catalogue declares. */
export interface LedgerEvent {
  event_type: EventType;
  actor: string;
  data: Record<string, unknown>;
}

export const LEDGER_RECIPE =
  'Each entry is {seq, prev_hash, at, event_type, actor, data, proof?, hash}. ' +
  'hash = lowercase hex SHA-256 of the UTF-8 RFC 8785 (JCS) serialisation of the entry without its hash field. ' +
  "prev_hash = the previous entry's hash; for seq 1 it is 64 zeros. " +
  'proof, on the first entry a signed request produced, is {method, path, nonce, body, signature} with body the canonical body signed, ' +
  'or {method, path, nonce, body_sha256, signature} where the body must not be republished (a refused Bedrock filing), ' +
  'body_sha256 being the lowercase hex SHA-256 of that body; exactly one of body and body_sha256 is present. The signing string is ' +
  '"society-sig-v1\\n<METHOD>\\n<path and query>\\n<actor>\\n<nonce>\\n<hex SHA-256 of body, or body_sha256>", and signature is its ' +
  "base64url ed25519 signature by the actor's primary key as registered earlier on this ledger " +
  '(by data.pubkey itself on agent_registered, by the backup key on key_rotated). ' +
  "Every entry that opens an agent's signed request (an act, a vote, a motion, a p0_refusal) carries that request's proof; " +
  'entries that follow it within the same request (ap_spent, standing_awarded, biome_first_discovery, relic_found for the requester; ' +
  'resource_received for the recipient named in resource_sent) carry none and share its at. ' +
  'Where society_founded names data.ledger_revision 1 or more, every act that spends AP is followed at once by ap_spent ' +
  "{act, amount, for_seq}: the act's name, the AP (equal to its entry's data.ap_spent where it has one) and its entry's seq; " +
  'without it there are no ap_spent entries. ' +
  "A p0_refusal's proof is in the body_sha256 form, equal to its data.payload_sha256; every other proof carries its body, " +
  "which must request the act that opens that event type, and the data fields that repeat the request (a vote's motion_id and choice, ...) must equal it. " +
  "An agent is never the actor of a system event, nor the system of an agent's. " +
  'Every key an entry brings in (data.pubkey, data.backup_pubkey, data.new_pubkey) must be the canonical base64url of the canonical ' +
  'encoding of a prime-order ed25519 point, and every signature canonical base64url with S < L; a ledger that breaks this is not sound. ' +
  `Every entry as served (its JSON with its hash, in UTF-8) is at most ${LEDGER_ENTRY_BYTES_MAX} bytes. ` +
  'Entries are never rewritten or deleted.';

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
  /**
   * The proof object the entry was chained with, if any: the very object an action was
   * logged with when the entry carries it verbatim, which lets the log record name the
   * entry instead of repeating the proof (engine/store/record_bytes.ts). Never serialised.
   */
  proof?: LedgerProof | undefined;
}

/** Places an event on the chain after `head`; the caller advances its head to the result. */
export function chainEntry(head: LedgerHead, at_ms: EpochMs, event: LedgerEvent, proof?: LedgerProof): ChainedEntry {
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
  const json = `${canonical.slice(0, -1)},"hash":"${hash}"}`;
  // UTF-8 takes at most 3 bytes per UTF-16 unit: only a long entry is measured.
  const bytes = json.length * 3 <= LEDGER_ENTRY_BYTES_MAX ? json.length : Buffer.byteLength(json, 'utf8');
  invariant(
    bytes <= LEDGER_ENTRY_BYTES_MAX,
    `ledger entry ${unhashed.seq} (${event.event_type}) would take ${bytes} bytes, over LEDGER_ENTRY_BYTES_MAX (${LEDGER_ENTRY_BYTES_MAX})`,
  );
  return { seq: unhashed.seq, hash, json, proof };
}

const quote = JSON.stringify;

/**
 * The JCS text of an unhashed entry, written around its fixed envelope: the keys in
 * their sorted order, strings through JSON.stringify (whose escapes are the ones
 * RFC 8785 prescribes), and only `data` through the general canonicaliser. It is the
 * hot path of every append; a property test holds it equal to canonicalJson(entry).
 */
export function canonicalEntry(entry: Omit<LedgerEntry, 'hash'>): string {
  const proof = entry.proof ? `,"proof":${canonicalProof(entry.proof)}` : '';
  return `{"actor":${quote(entry.actor)},"at":${quote(entry.at)},"data":${canonicalJson(entry.data)},"event_type":${quote(entry.event_type)},"prev_hash":${quote(entry.prev_hash)}${proof},"seq":${entry.seq}}`;
}

/** "body" and "body_sha256" both sort before "method", so either form keeps the same key order after it. */
function canonicalProof(proof: LedgerProof): string {
  const signed = 'body' in proof ? `"body":${quote(proof.body)}` : `"body_sha256":${quote(proof.body_sha256)}`;
  return `{${signed},"method":${quote(proof.method)},"nonce":${quote(proof.nonce)},"path":${quote(proof.path)},"signature":${quote(proof.signature)}}`;
}
