import { generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { signingString } from '../client/protocol.js';
import { canonicalJson, sha256Hex } from '../engine/canonical.js';
import type { Submission } from '../engine/engine.js';
import { agentIdOf } from '../engine/identity.js';

/**
 * A member that signs its acts for real, for societies grown straight through the
 * engine (at engine speed, not HTTP speed) that must still pass a restore drill or
 * `replay`: each submission carries the proof a signed request would have left, so
 * the ledger's recipe (every member entry proved by its signer's key) holds.
 */
export class SigningMember {
  readonly pubkey: string;
  readonly id: string;
  private readonly private_key: KeyObject;

  constructor() {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    this.pubkey = publicKey.export({ format: 'jwk' }).x as string;
    this.id = agentIdOf(this.pubkey);
    this.private_key = privateKey;
  }

  register(handle: string): Submission {
    return this.signed('register', '/api/v1/register', {
      pubkey: this.pubkey,
      handle,
      declared_runtime: '',
      backup_pubkey: null,
    });
  }

  registerBackupKey(backup_pubkey: string): Submission {
    return this.signed('key_backup_register', '/api/v1/keys/backup', { backup_pubkey });
  }

  /** The act as the route would hand it to the engine: `body` is the payload, signed as POST `path` with a fresh nonce. */
  private signed(act: string, path: string, body: Record<string, unknown>): Submission {
    const nonce = randomBytes(18).toString('base64url');
    const canonical = canonicalJson(body);
    const text = signingString({ method: 'POST', path, agent_id: this.id, nonce, body_sha256: sha256Hex(canonical) });
    const signature = sign(null, Buffer.from(text, 'utf8'), this.private_key).toString('base64url');
    return { act, actor: this.id, payload: body, proof: { method: 'POST', path, nonce, body: canonical, signature } };
  }
}
