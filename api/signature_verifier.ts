import { createPublicKey, verify, type KeyObject } from 'node:crypto';

/**
 * ed25519 verification with node:crypto on cached KeyObjects: parsing a key costs
 * about as much as verifying, so each registered key is parsed once.
 */
export class SignatureVerifier {
  private readonly keys = new Map<string, KeyObject>();

  constructor(private readonly cached_keys_max = 250_000) {}

  verify(pubkey: string, message: string, signature: string): boolean {
    const signature_bytes = Buffer.from(signature, 'base64url');
    if (signature_bytes.length !== 64) return false;
    try {
      return verify(null, Buffer.from(message, 'utf8'), this.keyObject(pubkey), signature_bytes);
    } catch {
      return false;
    }
  }

  private keyObject(pubkey: string): KeyObject {
    let key = this.keys.get(pubkey);
    if (!key) {
      key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: pubkey }, format: 'jwk' });
      if (this.keys.size >= this.cached_keys_max) this.keys.clear();
      this.keys.set(pubkey, key);
    }
    return key;
  }
}
