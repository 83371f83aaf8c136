import { Point } from '@noble/ed25519';
import { z } from 'zod';
import { sha256Hex } from './canonical.js';
import { refuse, type Refusal } from './refusals.js';

/**
 * A raw 32-byte ed25519 public key in base64url without padding is 43 characters;
 * the last one carries 4 bits of key and 2 unused bits, which must be zero so that
 * one key has one spelling.
 */
export const PUBKEY_PATTERN = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
/**
 * A 64-byte signature is 86 characters; the last one carries 2 bits of signature
 * and 4 unused bits, which must be zero (otherwise 16 strings decode to one signature).
 */
export const SIGNATURE_PATTERN = /^[A-Za-z0-9_-]{85}[AQgw]$/;

const weak_key_message = 'must be the canonical encoding of a prime-order ed25519 point (small-order, mixed-order and non-canonical keys are refused)';

/**
 * A public key field of any schema. A well-formed key that is weak is reported with
 * the refusal WEAK_KEY (params.refusal), which the API answers as 400 WEAK_KEY
 * rather than as a 422, before any signature is checked or any nonce is spent.
 */
export const PubkeySchema = z
  .string()
  .regex(PUBKEY_PATTERN, 'must be a base64url (no padding) ed25519 public key of 43 characters')
  .refine((pubkey) => !PUBKEY_PATTERN.test(pubkey) || isPrimeOrderKey(pubkey), { message: weak_key_message, params: { refusal: 'WEAK_KEY' } });

export const AGENT_ID_PATTERN = /^ag_[0-9a-f]{16}$/;

export function pubkeyBytes(pubkey: string): Uint8Array {
  const bytes = Buffer.from(pubkey, 'base64url');
  if (bytes.length !== 32) throw new Error('an ed25519 public key is 32 bytes');
  return bytes;
}

/** agent_id = "ag_" + the first 16 hex digits of SHA-256(raw public key). */
export function agentIdOf(pubkey: string): string {
  return 'ag_' + sha256Hex(pubkeyBytes(pubkey)).slice(0, 16);
}

// The subgroup check is a full scalar multiplication (about a millisecond), and the
// same key is judged by the schema, then by apply and by the signature verifier.
const verdicts = new Map<string, boolean>();
const verdicts_max = 10_000;

/**
 * True when `pubkey` is the one canonical base64url spelling of the canonical
 * encoding (y < p, no sign bit on x = 0) of a point of prime order L. For any other
 * point a signature exists that verifies without the private key, or for every
 * message (the identity point with R = identity, S = 0). No prime-order point has a
 * second encoding (the y >= p spellings all decode to points with a torsion part), so
 * for accepted keys comparing strings is comparing points.
 */
export function isPrimeOrderKey(pubkey: string): boolean {
  let verdict = verdicts.get(pubkey);
  if (verdict === undefined) {
    verdict = judgeKey(pubkey);
    if (verdicts.size >= verdicts_max) verdicts.clear();
    verdicts.set(pubkey, verdict);
  }
  return verdict;
}

/**
 * The refusal for the first weak key among the fields of an identity act. Apply
 * calls it too, whatever the API checked, so no log can ever carry a weak key.
 */
export function weakKeyRefusal(keys: Record<string, string | null>): Refusal | undefined {
  for (const [field, pubkey] of Object.entries(keys)) {
    if (pubkey !== null && !isPrimeOrderKey(pubkey)) return refuse('WEAK_KEY', undefined, { field });
  }
  return undefined;
}

function judgeKey(pubkey: string): boolean {
  if (!PUBKEY_PATTERN.test(pubkey)) return false;
  try {
    // Strict (non-ZIP-215) decoding refuses y >= p and a sign bit set on x = 0.
    const point = Point.fromBytes(pubkeyBytes(pubkey), false);
    return !point.is0() && point.isTorsionFree();
  } catch {
    return false;
  }
}
