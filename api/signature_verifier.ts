import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { SIGNATURE_PATTERN, isPrimeOrderKey } from '../engine/index.js';

/**
 * valid: the signature verifies and the key is strong; invalid: it does not verify;
 * weak_key: it verifies, but under a key for which that proves nothing.
 */
export type SignatureVerdict = 'valid' | 'invalid' | 'weak_key';

interface CachedKey {
  key: KeyObject;
  /** Judged after the first signature that verifies under the key, then kept. */
  strong?: boolean;
}

/**
 * ed25519 verification with node:crypto on cached KeyObjects: parsing a key costs
 * about as much as verifying, so each key is parsed once. A key's strength (a
 * canonical prime-order point) is judged once per key, after the first signature
 * that verifies under it: a guard of its own, whatever the caller checked.
 *
 * OpenSSL checks the rest of canonical form itself: S < L, and R by comparing its
 * bytes with the encoding it recomputes, so no second spelling of R verifies. The
 * spelling of the signature is checked here: base64url with its unused bits zero.
 */
export class SignatureVerifier {
  private readonly keys = new Map<string, CachedKey>();

  constructor(private readonly cached_keys_max = 250_000) {}

  check(pubkey: string, message: string, signature: string): SignatureVerdict {
    if (!SIGNATURE_PATTERN.test(signature)) return 'invalid';
    let cached: CachedKey;
    try {
      cached = this.cachedKey(pubkey);
      if (!verify(null, Buffer.from(message, 'utf8'), cached.key, Buffer.from(signature, 'base64url')))
        return 'invalid';
    } catch {
      return 'invalid';
    }
    cached.strong ??= isPrimeOrderKey(pubkey);
    return cached.strong ? 'valid' : 'weak_key';
  }

  verify(pubkey: string, message: string, signature: string): boolean {
    return this.check(pubkey, message, signature) === 'valid';
  }

  private cachedKey(pubkey: string): CachedKey {
    let cached = this.keys.get(pubkey);
    if (!cached) {
      cached = { key: createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: pubkey }, format: 'jwk' }) };
      if (this.keys.size >= this.cached_keys_max) this.keys.clear();
      this.keys.set(pubkey, cached);
    }
    return cached;
  }
}
