import type { Context } from 'koa';
import {
  type SignerRule,
  sha256Hex,
  AGENT_ID_PATTERN,
  SIGNATURE_PATTERN,
  agentIdOf,
  publicKeysIn,
  weakKeyRefusal,
  type Proof,
  type SocietyState,
  type ConsumedNonce,
  isoAt,
} from '../engine/index.js';
import {
  HEADER_AGENT_ID,
  HEADER_NEXT_NONCE,
  HEADER_NEXT_NONCE_EXPIRES_AT,
  HEADER_NONCE,
  HEADER_SIGNATURE,
  signingString,
} from '../client/protocol.js';
import type { NonceBook } from './nonces.js';
import { RefusalError } from './refusal_error.js';
import { rotatedKeyRefusal } from './rotated_key.js';
import type { SignatureVerifier } from './signature_verifier.js';

// Where server.ts has always found them.
export { FormerPrimaryKeys, provideFormerKeys } from './rotated_key.js';

const NONCE_PATTERN = /^[A-Za-z0-9_-]{16,128}$/;

export interface Authenticated {
  actor: string;
  proof: Proof;
  consumed_nonce: ConsumedNonce;
  /** SHA-256 of the signing string: what identifies this exact request (a retry has the same). */
  request_sha256: string;
}

/**
 * docs/protocol.md#nonces-and-signatures, in order: well-formed headers, a known signer (or, for
 * registration, the key in the body under its own id), an outstanding nonce issued
 * for that id, and a signature over the canonical body. Only after all of that is
 * the nonce spent, so nothing is touched for a request that fails any check; then
 * the next nonce for that agent is issued on the answer (X-Next-Nonce).
 */
/** What a request as it came in signs (docs/protocol.md#nonces-and-signatures): the one recipe the check and the retry book use. */
export function requestSigningString(ctx: Context, agent_id: string, nonce: string, canonical_body: string): string {
  return signingString({
    method: ctx.method,
    path: ctx.originalUrl,
    agent_id,
    nonce,
    body_sha256: sha256Hex(canonical_body),
  });
}

export class Authenticator {
  constructor(
    private readonly state: () => Readonly<SocietyState>,
    private readonly nonces: NonceBook,
    private readonly verifier: SignatureVerifier,
  ) {}

  authenticate(ctx: Context, canonical_body: string, signer: SignerRule, payload?: unknown): Authenticated {
    const agent_id = ctx.get(HEADER_AGENT_ID);
    const nonce = ctx.get(HEADER_NONCE);
    const signature = ctx.get(HEADER_SIGNATURE);
    if (!AGENT_ID_PATTERN.test(agent_id) || !NONCE_PATTERN.test(nonce) || !SIGNATURE_PATTERN.test(signature)) {
      throw RefusalError.of(
        'SIG_INVALID',
        'Send X-Agent-Id, X-Nonce and X-Signature headers, well formed, the signature in canonical base64url (see docs/protocol.md#nonces-and-signatures in the repository).',
      );
    }
    const payload_keys = publicKeysIn(payload);
    const pubkey = this.signingKey(agent_id, signer, payload_keys.pubkey);
    // Judging a key costs about one verification, so weak keys are refused before any signature is checked.
    const weak = weakKeyRefusal(payload_keys);
    if (weak) throw new RefusalError(weak);
    if (!this.nonces.isValid(nonce, agent_id)) throw RefusalError.of('NONCE_INVALID');
    const message = requestSigningString(ctx, agent_id, nonce, canonical_body);
    const verdict = this.verifier.check(pubkey, message, signature);
    if (verdict === 'invalid') throw this.signatureRefusal(ctx, agent_id, signer, message, signature, canonical_body);
    // Registered signers' keys were judged when they came in; this is the verifier's own guard, before the nonce is spent.
    if (verdict === 'weak_key') throw RefusalError.of('WEAK_KEY', undefined, { field: 'pubkey' });
    const request_sha256 = sha256Hex(message);
    const consumed_nonce = this.nonces.spend(nonce);
    // The next nonce rides on this answer, whatever the act's outcome: the one just spent is gone either way.
    this.handOverNextNonce(ctx, agent_id);
    return {
      actor: agent_id,
      consumed_nonce,
      request_sha256,
      proof: { method: ctx.method, path: ctx.originalUrl, nonce, body: canonical_body, signature },
    };
  }

  /**
   * SIG_INVALID with the hint its cause needs. The signature is tried (only on this
   * refused path) under the agent's other keys: its backup or primary key, and the
   * primary keys rotated away. When none signed it, the key was right and the request
   * was not what was signed (body, path, method or nonce).
   */
  private signatureRefusal(
    ctx: Context,
    agent_id: string,
    signer: SignerRule,
    message: string,
    signature: string,
    canonical_body: string,
  ): RefusalError {
    const agent = signer === 'payload_pubkey' ? undefined : this.state().agents.get(agent_id);
    const signedBy = (key: string | null | undefined) =>
      typeof key === 'string' && this.verifier.check(key, message, signature) === 'valid';
    if (agent && signer === 'backup' && signedBy(agent.pubkey))
      return RefusalError.of('SIG_INVALID', undefined, {
        cause: 'wrong_key',
        hint: "Signed by the agent's primary key; a key rotation is signed by its backup key.",
      });
    if (agent && signer !== 'backup' && signedBy(agent.backup_pubkey))
      return RefusalError.of('SIG_INVALID', undefined, {
        cause: 'wrong_key',
        hint: "Signed by the agent's backup key, which signs only a key rotation; sign this request with the primary key.",
      });
    const rotated = agent && signer !== 'backup' ? rotatedKeyRefusal(ctx, agent_id, signedBy) : undefined;
    if (rotated) return rotated;
    const also_rotated =
      agent && agent.key_generation > 0 && signer !== 'backup'
        ? ` If you signed with a key the agent had before its primary key was rotated, sign with the current one.`
        : '';
    return RefusalError.of('SIG_INVALID', undefined, {
      cause: 'body_mismatch',
      hint:
        "The key is the agent's, but the request is not what it signed: sign method, path (signed_path), nonce and the canonical body " +
        `with every declared default filled in; the server canonicalised your body as canonical_body.${also_rotated}`,
      canonical_body: canonical_body.length <= 4096 ? canonical_body : undefined,
      signed_path: ctx.originalUrl,
    });
  }

  /** Issues the agent's next nonce on this answer (X-Next-Nonce): after every accepted request, and a replayed one. */
  handOverNextNonce(ctx: Context, agent_id: string): void {
    const next = this.nonces.issue(agent_id);
    ctx.set(HEADER_NEXT_NONCE, next.nonce);
    ctx.set(HEADER_NEXT_NONCE_EXPIRES_AT, isoAt(next.expires_at_ms));
  }

  private signingKey(agent_id: string, signer: SignerRule, payload_pubkey: string | undefined): string {
    if (signer === 'payload_pubkey') {
      if (payload_pubkey === undefined || agentIdOf(payload_pubkey) !== agent_id) {
        throw RefusalError.of(
          'SIG_INVALID',
          'X-Agent-Id must be the agent id derived from the pubkey being registered.',
        );
      }
      return payload_pubkey;
    }
    const agent = this.state().agents.get(agent_id);
    if (!agent) throw RefusalError.of('UNKNOWN_AGENT');
    if (signer === 'backup') {
      if (agent.backup_pubkey === null) throw RefusalError.of('NO_BACKUP_KEY');
      return agent.backup_pubkey;
    }
    return agent.pubkey;
  }
}
