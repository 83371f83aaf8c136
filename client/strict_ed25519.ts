import { Point, etc, hashes } from '@noble/ed25519';
import { fromCanonicalBase64url } from './base64url.js';

/** The order of the prime-order subgroup of edwards25519 (RFC 8032's L). */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

// The subgroup check is a full scalar multiplication; a ledger names each key many times.
const verdicts = new Map<string, boolean>();
const verdicts_max = 10_000;

/**
 * True when `public_key` is canonical base64url of the canonical encoding (y < p, no
 * sign bit on x = 0) of a point of prime order L: the only keys whose signatures
 * prove anything (docs/protocol.md#strong-keys-and-canonical-signatures). The server applies the
 * same rule; this copy keeps the client free of server code.
 */
export function isPrimeOrderKey(public_key: string): boolean {
  let verdict = verdicts.get(public_key);
  if (verdict === undefined) {
    verdict = judgeKey(public_key);
    if (verdicts.size >= verdicts_max) verdicts.clear();
    verdicts.set(public_key, verdict);
  }
  return verdict;
}

function judgeKey(public_key: string): boolean {
  try {
    const bytes = fromCanonicalBase64url(public_key);
    if (bytes.length !== 32) return false;
    const point = Point.fromBytes(bytes, false);
    return !point.is0() && point.isTorsionFree();
  } catch {
    return false;
  }
}

/**
 * RFC 8032 verification as the server's OpenSSL does it: a prime-order key, S < L,
 * and R byte for byte equal to the encoding of [S]B - [k]A (the cofactorless
 * equation, so R must be canonical and carry no torsion). noble's own verify uses
 * the cofactored equation, which accepts signatures the server refuses; a ledger
 * check must not be looser than the service that wrote the ledger.
 */
export async function verifyStrict(public_key: string, message: Uint8Array, signature: string): Promise<boolean> {
  try {
    if (!isPrimeOrderKey(public_key)) return false;
    const signature_bytes = fromCanonicalBase64url(signature);
    if (signature_bytes.length !== 64) return false;
    const key_bytes = fromCanonicalBase64url(public_key);
    const r_bytes = signature_bytes.subarray(0, 32);
    const s = littleEndian(signature_bytes.subarray(32));
    if (s >= L) return false;
    const k = etc.mod(littleEndian(await hashes.sha512Async(etc.concatBytes(r_bytes, key_bytes, message))), L);
    const expected_r = Point.BASE.multiply(s, false).subtract(Point.fromBytes(key_bytes, false).multiply(k, false));
    return etc.bytesToHex(expected_r.toBytes()) === etc.bytesToHex(r_bytes);
  } catch {
    return false;
  }
}

function littleEndian(bytes: Uint8Array): bigint {
  return BigInt('0x' + (etc.bytesToHex(Uint8Array.from(bytes).reverse()) || '0'));
}
