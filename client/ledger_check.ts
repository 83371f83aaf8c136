import canonicalizeJson from 'canonicalize';
import { verifyText } from './keys.js';
import { agentIdOf, sha256Hex, signingString } from './protocol.js';

/** A ledger entry as the wire carries it (PROTOCOL.md section 4). */
export interface WireEntry {
  seq: number;
  prev_hash: string;
  at: string;
  event_type: string;
  actor: string;
  data: Record<string, unknown>;
  proof?: { method: string; path: string; nonce: string; body: string; signature: string };
  hash: string;
}

export interface Problem {
  seq: number;
  reason: string;
}

/**
 * The arithmetic under the recipe: SHA-256 and ed25519 verification. The defaults
 * are the portable ones every client has (WebCrypto, pure-JS ed25519); a server
 * checking its own store passes node:crypto's, many times faster. The recipe itself
 * stays in this one file either way.
 */
export interface CheckPrimitives {
  sha256Hex: (text: string) => string | Promise<string>;
  verifySignature: (public_key: string, text: string, signature: string) => boolean | Promise<boolean>;
}

const PORTABLE_PRIMITIVES: CheckPrimitives = { sha256Hex, verifySignature: verifyText };

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

  constructor(private readonly primitives: CheckPrimitives = PORTABLE_PRIMITIVES) {}

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
    if (entry.prev_hash !== this.last_hash) return fail('prev_hash does not match the previous entry\'s hash');
    const { hash, ...unhashed } = entry;
    const text = canonicalizeJson(unhashed);
    if (text === undefined || (await this.primitives.sha256Hex(text)) !== hash) return fail('hash does not match the entry\'s content');
    const problem = await this.checkProof(entry);
    if (problem) return fail(problem);
    this.learnKeys(entry);
    this.expected_seq += 1;
    this.last_hash = hash;
    return undefined;
  }

  private async checkProof(entry: WireEntry): Promise<string | undefined> {
    const { proof, data } = entry;
    const identity_event = entry.event_type === 'agent_registered' || entry.event_type === 'key_backup_registered' || entry.event_type === 'key_rotated';
    const founder_genesis = entry.event_type === 'agent_registered' && entry.seq === 2 && data.role === 'founder';
    if (!proof) return identity_event && !founder_genesis ? `${entry.event_type} carries no proof` : undefined;
    if (this.nonces_seen.has(proof.nonce)) return 'proof reuses a nonce already spent on this ledger';
    this.nonces_seen.add(proof.nonce);

    let signer_key: string | undefined;
    if (entry.event_type === 'agent_registered') {
      signer_key = String(data.pubkey);
      if ((await agentIdOf(signer_key).catch(() => '')) !== entry.actor) return 'actor is not the id derived from the registered key';
    } else if (entry.event_type === 'key_rotated') {
      signer_key = this.keys.get(entry.actor)?.backup ?? undefined;
      if (!signer_key) return 'key rotation by an agent without a backup key';
    } else {
      signer_key = this.keys.get(entry.actor)?.primary;
      if (!signer_key) return 'proof by an agent not registered earlier on this ledger';
    }
    const text = signingString({ method: proof.method, path: proof.path, agent_id: entry.actor, nonce: proof.nonce, body_sha256: await this.primitives.sha256Hex(proof.body) });
    if (!(await this.primitives.verifySignature(signer_key, text, proof.signature))) return 'proof signature does not verify';
    return this.signedDataMismatch(entry);
  }

  /** For identity events the data must be what was signed, so an operator cannot swap a key. */
  private signedDataMismatch(entry: WireEntry): string | undefined {
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(entry.proof!.body) as Record<string, unknown>;
    } catch {
      return 'proof body is not JSON';
    }
    const payload = (body.payload && typeof body.payload === 'object' ? body.payload : body) as Record<string, unknown>;
    const fields: Record<string, string[]> = {
      agent_registered: ['pubkey', 'handle', 'declared_runtime', 'backup_pubkey'],
      key_backup_registered: ['backup_pubkey'],
    };
    if (entry.event_type === 'key_rotated') return payload.new_pubkey === entry.data.new_pubkey ? undefined : 'data differs from the signed body';
    for (const field of fields[entry.event_type] ?? []) {
      if (payload[field] !== entry.data[field]) return `data.${field} differs from the signed body`;
    }
    return undefined;
  }

  private learnKeys(entry: WireEntry): void {
    const { data } = entry;
    if (entry.event_type === 'agent_registered') {
      this.keys.set(entry.actor, { primary: String(data.pubkey), backup: typeof data.backup_pubkey === 'string' ? data.backup_pubkey : null });
    } else if (entry.event_type === 'key_backup_registered') {
      const keys = this.keys.get(entry.actor);
      if (keys) keys.backup = String(data.backup_pubkey);
    } else if (entry.event_type === 'key_rotated') {
      const keys = this.keys.get(entry.actor);
      if (keys) keys.primary = String(data.new_pubkey);
    }
  }
}
