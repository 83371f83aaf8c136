import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { SIGNATURE_PATTERN, isPrimeOrderKey } from '../engine/identity.js';

/**
 * ed25519 verification with node:crypto on cached KeyObjects: parsing a key costs
 * about as much as verifying, so each registered key is parsed once, and judged
 * once: a key that is not a canonical prime-order point verifies nothing, since for
 * such keys signatures exist that verify without the private key.
 *
 * OpenSSL checks the rest of canonical form itself: S < L, and R by comparing its
 * bytes with the encoding it recomputes, so no second spelling of R verifies. The
 * spelling of the signature is checked here: base64url with its unused bits zero.
 */
export class SignatureVerifier {
  private readonly keys = new Map<string, KeyObject | null>();

  constructor(private readonly cached_keys_max = 250_000) {}

  verify(pubkey: string, message: string, signature: string): boolean {
    if (!SIGNATURE_PATTERN.test(signature)) return false;
    const key = this.keyObject(pubkey);
    if (!key) return false;
    try {
      return verify(null, Buffer.from(message, 'utf8'), key, Buffer.from(signature, 'base64url'));
    } catch {
      return false;
    }
  }

  private keyObject(pubkey: string): KeyObject | null {
    let key = this.keys.get(pubkey);
    if (key === undefined) {
      key = isPrimeOrderKey(pubkey) ? createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: pubkey }, format: 'jwk' }) : null;
      if (this.keys.size >= this.cached_keys_max) this.keys.clear();
      this.keys.set(pubkey, key);
    }
    return key;
  }
}
