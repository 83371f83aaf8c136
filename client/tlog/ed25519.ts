import { toBase64url } from '../base64url.js';
import { verifyStrict } from '../strict_ed25519.js';

/**
 * RFC 8032 verification as Go's crypto/ed25519 does it (S < L, R equal to the encoding
 * of [S]B - [k]A), on a prime-order key: the client's one strict verifier, which takes
 * base64url, so the bytes are spelled that way for it.
 */
export function verifyEd25519(public_key: Uint8Array, message: Uint8Array, signature: Uint8Array): Promise<boolean> {
  if (public_key.length !== 32 || signature.length !== 64) return Promise.resolve(false);
  return verifyStrict(toBase64url(public_key), message, toBase64url(signature));
}
