import canonicalizeJson from 'canonicalize';
import { verifyText } from './keys.js';
import { agentIdWith, sha256Hex, signingString } from './protocol.js';
import { isPrimeOrderKey } from './strict_ed25519.js';
import {
  actOfSigned,
  AP_SPENDING_ACTS,
  AP_SPENT_LEDGER_REVISION,
  eventDeclaration,
  FOLLOW_UP_OPENERS,
  followUpKey,
  GENERIC_ACT_ROUTE,
  REQUEST_OPENING_EVENTS,
} from './ledger_events.js';

/** A ledger entry as the wire carries it (docs/protocol.md#the-ledger). */
export interface WireEntry {
  seq: number;
  prev_hash: string;
  at: string;
  event_type: string;
  actor: string;
  data: Record<string, unknown>;
  proof?: WireProof;
  hash: string;
}

/**
 * The signed request behind an entry: with `body`, the canonical body that was signed;
 * with `body_sha256` instead, only its hex SHA-256, where the body must not be
 * republished (a refused Bedrock filing). Exactly one of the two is present.
 */
export interface WireProof {
  method: string;
  path: string;
  nonce: string;
  body?: string;
  body_sha256?: string;
  signature: string;
}

export { eventClass } from './ledger_events.js';

const SHA256_HEX = /^[0-9a-f]{64}$/;

export interface Problem {
  seq: number;
  reason: string;
}

/**
 * The arithmetic under the recipe: SHA-256 and ed25519 verification. The defaults
 * are the portable ones every client has (WebCrypto, pure-JS ed25519); a server
 * checking its own store passes node:crypto's, which are faster. The recipe itself
 * stays in this one file either way.
 */
export interface CheckPrimitives {
  /** Of UTF-8 text, or of raw bytes (a public key, for the agent id it derives). */
  sha256Hex: (data: string | Uint8Array) => string | Promise<string>;
  verifySignature: (public_key: string, text: string, signature: string) => boolean | Promise<boolean>;
  /** docs/protocol.md#strong-keys-and-canonical-signatures: the canonical encoding of a prime-order point (the portable judge is the slow one). */
  isPrimeOrderKey: (public_key: string) => boolean;
}

const PORTABLE_PRIMITIVES: CheckPrimitives = { sha256Hex, verifySignature: verifyText, isPrimeOrderKey };

interface Keys {
  primary: string;
  backup: string | null;
}

const ZERO_HASH = '0'.repeat(64);

/**
 * Checks a ledger entry by entry, needing nothing but the entries and the recipe:
 * sequence, chain link, own hash, and every proof against the keys registered
 * earlier on the same ledger. It also refuses a nonce used twice (a replayed proof)
 * and, for the identity events, data that differs from what the signer signed.
 */
export class LedgerChecker {
  private expected_seq = 1;
  private last_hash = ZERO_HASH;
  private readonly keys = new Map<string, Keys>();
  private readonly nonces_seen = new Set<string>();
  /** The entry that opened the request being read, which follow-up entries belong to. */
  private opening: WireEntry | undefined;
  /** society_founded's data.ledger_revision: which entries this ledger holds (0 when absent). */
  private ledger_revision = 0;
  /** The act entry just read spent AP on a ledger that records it: the next entry must be its ap_spent. */
  private ap_spent_due: WireEntry | undefined;

  constructor(private readonly primitives: CheckPrimitives = PORTABLE_PRIMITIVES) {}

  /**
   * A checker that goes on from a point of the ledger already trusted (a replica's own
   * store, checked when it was written), instead of reading it all again: the next seq
   * and hash, the ledger's revision, and every agent's keys as they stand there. Nonces
   * spent before that point are not known to it.
   */
  static resumedAt(
    point: {
      seq: number;
      hash: string;
      ledger_revision: number;
      keys: Iterable<{ agent_id: string; pubkey: string; backup_pubkey: string | null }>;
    },
    primitives: CheckPrimitives = PORTABLE_PRIMITIVES,
  ): LedgerChecker {
    const checker = new LedgerChecker(primitives);
    checker.expected_seq = point.seq + 1;
    checker.last_hash = point.seq === 0 ? ZERO_HASH : point.hash;
    checker.ledger_revision = point.ledger_revision;
    for (const agent of point.keys)
      checker.keys.set(agent.agent_id, { primary: agent.pubkey, backup: agent.backup_pubkey });
    return checker;
  }

  get checked(): number {
    return this.expected_seq - 1;
  }

  get head_hash(): string {
    return this.last_hash;
  }

  /** Returns the first problem with this entry, or undefined if it is sound. */
  async check(entry: WireEntry): Promise<Problem | undefined> {
    // Problems are reported at the position in the chain, whatever the entry claims its seq is.
    const fail = (reason: string): Problem => ({ seq: this.expected_seq, reason });
    if (!entry || typeof entry !== 'object') return fail('entry is not an object');
    if (entry.seq !== this.expected_seq) return fail(`expected seq ${this.expected_seq}, found ${String(entry.seq)}`);
    if (entry.prev_hash !== this.last_hash) return fail("prev_hash does not match the previous entry's hash");
    const { hash, ...unhashed } = entry;
    const text = canonicalizeJson(unhashed);
    if (text === undefined || (await this.primitives.sha256Hex(text)) !== hash)
      return fail("hash does not match the entry's content");
    const weak = weakKeyIn(entry, this.primitives.isPrimeOrderKey);
    if (weak) return fail(weak);
    const problem = this.missingApSpent(entry) ?? (await this.checkProof(entry));
    if (problem) return fail(problem);
    this.learnKeys(entry);
    this.noteRequest(entry);
    this.expected_seq += 1;
    this.last_hash = hash;
    return undefined;
  }

  private async checkProof(entry: WireEntry): Promise<string | undefined> {
    const { proof, data } = entry;
    const declaration = eventDeclaration(entry.event_type);
    const founder_genesis =
      declaration?.class === 'opens_request' &&
      declaration.at_genesis_without_proof === true &&
      entry.seq === 2 &&
      data.role === 'founder';
    const kind = declaration?.class;
    // An agent's event by 'system' would carry no proof, yet its data still names the agent.
    if (kind === undefined || (kind === 'system') !== (entry.actor === 'system'))
      return `${entry.event_type} is not an entry ${entry.actor === 'system' ? 'the system' : 'an agent'} can be the actor of`;
    if (!proof) {
      if (kind === 'opens_request' && !founder_genesis) return `${entry.event_type} carries no proof`;
      return kind === 'follows_request' ? this.strayFollowUp(entry) : undefined;
    }
    const body_sha256 = await signedBodySha256(proof, this.primitives.sha256Hex);
    if (body_sha256 === undefined)
      return 'proof must carry exactly one of body and body_sha256 (64 lowercase hex digits)';
    const digest_form = declaration?.class === 'opens_request' && declaration.digest_proof === true;
    if (digest_form && data.payload_sha256 !== body_sha256)
      return 'data.payload_sha256 is not the hash of the body the proof signed';
    if (this.nonces_seen.has(proof.nonce)) return 'proof reuses a nonce already spent on this ledger';
    this.nonces_seen.add(proof.nonce);

    const signed_by = declaration?.class === 'opens_request' ? declaration.signed_by : undefined;
    let signer_key: string | undefined;
    if (signed_by === 'data.pubkey') {
      signer_key = String(data.pubkey);
      if ((await agentIdWith(signer_key, this.primitives.sha256Hex).catch(() => '')) !== entry.actor)
        return 'actor is not the id derived from the registered key';
    } else if (signed_by === 'backup_key') {
      signer_key = this.keys.get(entry.actor)?.backup ?? undefined;
      if (!signer_key) return 'key rotation by an agent without a backup key';
    } else {
      signer_key = this.keys.get(entry.actor)?.primary;
      if (!signer_key) return 'proof by an agent not registered earlier on this ledger';
    }
    const text = signingString({
      method: proof.method,
      path: proof.path,
      agent_id: entry.actor,
      nonce: proof.nonce,
      body_sha256,
    });
    if (!(await this.primitives.verifySignature(signer_key, text, proof.signature)))
      return 'proof signature does not verify';
    return this.signedDataMismatch(entry);
  }

  /** A follow-up entry must belong to the request right before it: same time, an act that can produce it, and an agent that request names. */
  private strayFollowUp(entry: WireEntry): string | undefined {
    const opening = this.opening;
    if (!opening || opening.at !== entry.at) return `${entry.event_type} follows no signed request of its own`;
    const kind = followUpKey(entry.event_type, entry.data);
    if (!FOLLOW_UP_OPENERS.get(kind)?.includes(opening.event_type))
      return `${kind} cannot come of a ${opening.event_type} request`;
    if (entry.event_type === 'ap_spent') {
      const mismatch = this.apSpentMismatch(entry, opening);
      if (mismatch) return mismatch;
    }
    const declaration = eventDeclaration(entry.event_type);
    const named_field = declaration?.class === 'follows_request' ? declaration.actor_from_opening : undefined;
    const named = named_field === undefined ? opening.actor : opening.data[named_field];
    return named === entry.actor
      ? undefined
      : `${entry.event_type} is for an agent the signed request before it does not name`;
  }

  private noteRequest(entry: WireEntry): void {
    if (entry.seq === 1 && entry.event_type === 'society_founded') {
      const revision = entry.data?.ledger_revision;
      this.ledger_revision = typeof revision === 'number' ? revision : 0;
    }
    if (entry.proof) this.opening = entry;
    else if (entry.actor === 'system') this.opening = undefined;
    const spent = entry.data?.ap_spent;
    const records_ap = this.ledger_revision >= AP_SPENT_LEDGER_REVISION;
    this.ap_spent_due = records_ap && entry.proof && typeof spent === 'number' && spent > 0 ? entry : undefined;
  }

  private missingApSpent(entry: WireEntry): string | undefined {
    const due = this.ap_spent_due;
    if (!due || entry.event_type === 'ap_spent') return undefined;
    return `the ${due.event_type} at seq ${due.seq} spent ${String(due.data.ap_spent)} AP, but no ap_spent entry follows it`;
  }

  /**
   * An ap_spent entry must sit right behind the act that spent the AP, name that act as
   * its signed request does, and agree with the amount the act's own entry records.
   */
  private apSpentMismatch(entry: WireEntry, opening: WireEntry): string | undefined {
    if (this.ledger_revision < AP_SPENT_LEDGER_REVISION)
      return `ap_spent on a ledger of revision ${this.ledger_revision}, which records AP only in the act's own entry`;
    const { act, amount, for_seq } = entry.data;
    if (entry.seq !== opening.seq + 1 || for_seq !== opening.seq)
      return `ap_spent must follow the act it is for at once and name its seq (${opening.seq})`;
    if (typeof act !== 'string' || !AP_SPENDING_ACTS.has(act) || act !== actOfProof(opening.proof!))
      return `ap_spent names ${String(act)}, not the AP-spending act the signed request before it asked for`;
    if (typeof amount !== 'number' || !Number.isSafeInteger(amount) || amount <= 0)
      return 'ap_spent amount is not a positive whole number';
    if (opening.data.ap_spent !== undefined && opening.data.ap_spent !== amount)
      return `ap_spent amount ${amount} differs from the ${opening.event_type}'s ap_spent (${String(opening.data.ap_spent)})`;
    return undefined;
  }

  /**
   * The signed request must be one that opens this event type, and the data must repeat
   * what it asked for, so an operator can neither change a member's act nor turn one
   * act's proof into another's.
   */
  private signedDataMismatch(entry: WireEntry): string | undefined {
    const opening = REQUEST_OPENING_EVENTS.get(entry.event_type);
    if (!opening) return `${entry.event_type} opens no signed request`;
    const { path, body } = entry.proof!;
    const route = path.split('?')[0]!;
    const opens = (act: unknown) => typeof act === 'string' && Object.hasOwn(opening.opened_by, act);
    if (body === undefined) {
      // A digest proves who signed, not what: only an event whose body must stay unpublished may carry one.
      if (!opening.digest_proof) return `${entry.event_type} must carry its signed body, not only its digest`;
      return route === GENERIC_ACT_ROUTE || opens(actOfSigned(route, {}))
        ? undefined
        : `${entry.event_type} is not what a request to ${route} can open`;
    }
    let signed: Record<string, unknown>;
    try {
      signed = JSON.parse(body) as Record<string, unknown>;
    } catch {
      return 'proof body is not JSON';
    }
    if (signed === null || typeof signed !== 'object') return 'proof body is not a JSON object';
    const act = actOfSigned(route, signed);
    if (!opens(act)) return `${entry.event_type} is not what the signed request asked for (${String(act ?? route)})`;
    const payload = (route === GENERIC_ACT_ROUTE ? (signed.payload ?? {}) : signed) as Record<string, unknown>;
    for (const field of opening.opened_by[act as string]!.signed_fields) {
      const value = Object.hasOwn(payload, field.payload) ? payload[field.payload] : undefined;
      if (field.when_given && (value === undefined || value === null)) continue;
      if (canonicalizeJson(value) !== canonicalizeJson(dataAt(entry.data, field.data)))
        return `data.${field.data} differs from the signed body${field.payload === field.data ? '' : `'s ${field.payload}`}`;
    }
    return undefined;
  }

  /** The keys an identity event brings become the actor's from the next entry on; a registration starts them afresh. */
  private learnKeys(entry: WireEntry): void {
    const declaration = eventDeclaration(entry.event_type);
    if (declaration?.class !== 'opens_request' || !declaration.key_fields) return;
    if (declaration.signed_by === 'data.pubkey') this.keys.set(entry.actor, { primary: '', backup: null });
    const keys = this.keys.get(entry.actor);
    if (!keys) return;
    for (const { field, becomes } of declaration.key_fields) {
      const key = entry.data[field];
      if (becomes === 'primary') keys.primary = String(key);
      else keys.backup = typeof key === 'string' ? key : null;
    }
  }
}

/** The value at a dotted path of an entry's data (`position.x`), undefined where any step is missing. */
function dataAt(data: Record<string, unknown>, path: string): unknown {
  let value: unknown = data;
  for (const step of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, step)) return undefined;
    value = (value as Record<string, unknown>)[step];
  }
  return value;
}

/** The act behind a proof already checked, whose body (if it has one) is known to be a JSON object. */
function actOfProof(proof: WireProof): unknown {
  const route = proof.path.split('?')[0]!;
  return proof.body === undefined ? undefined : actOfSigned(route, JSON.parse(proof.body) as Record<string, unknown>);
}

/** The value of the signing string's last line, or undefined unless exactly one well-formed form is present. */
async function signedBodySha256(proof: WireProof, hash: CheckPrimitives['sha256Hex']): Promise<string | undefined> {
  const has_body = typeof proof.body === 'string';
  const has_digest = typeof proof.body_sha256 === 'string';
  if (has_body === has_digest) return undefined;
  if (has_body) return hash(proof.body!);
  return SHA256_HEX.test(proof.body_sha256!) ? proof.body_sha256 : undefined;
}

/** A key that is not a canonical prime-order point proves nothing (docs/protocol.md#strong-keys-and-canonical-signatures), so no ledger may register one. */
function weakKeyIn(entry: WireEntry, isPrimeOrderKey: CheckPrimitives['isPrimeOrderKey']): string | undefined {
  const declaration = eventDeclaration(entry.event_type);
  const key_fields = declaration?.class === 'opens_request' ? (declaration.key_fields ?? []) : [];
  for (const { field, nullable } of key_fields) {
    const key = entry.data?.[field];
    if (key === null && nullable) continue;
    if (typeof key !== 'string' || !isPrimeOrderKey(key))
      return `data.${field} is not a canonical prime-order ed25519 key`;
  }
  return undefined;
}
