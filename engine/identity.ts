import sodium from 'sodium-native';
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

/**
 * A public key field of any act's schema: the format only. Whether the key is strong
 * is for the API to judge around the signature check, where the cost of judging can
 * be kept from unsigned requests, and for apply to judge again (weakKeyRefusal).
 */
export const PubkeySchema = z
  .string()
  .regex(PUBKEY_PATTERN, 'must be a base64url (no padding) ed25519 public key of 43 characters');

/** A key read where no signature gates the work (the genesis settings): judged at parse time. */
export const StrongPubkeySchema = PubkeySchema.refine(
  (pubkey) => !PUBKEY_PATTERN.test(pubkey) || isPrimeOrderKey(pubkey),
  'must be the canonical encoding of a prime-order ed25519 point (small-order, mixed-order and non-canonical keys are refused)',
);

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

/**
 * True when `pubkey` is the one canonical base64url spelling of the canonical
 * encoding (y < p) of a point of prime order L. Under a small-order key signatures
 * verify without any private key (under the identity, R = identity and S = 0 verifies
 * every message); under a mixed-order key verifiers disagree on which signatures hold.
 * No prime-order point has a second encoding (the y >= p spellings all decode to
 * points with a torsion part), so for accepted keys comparing strings is comparing points.
 *
 * libsodium judges the point (canonical y, not of small order, on the curve, in the
 * prime-order subgroup) far faster than the same
 * subgroup check in pure JavaScript; that keeps it cheap enough to run before any
 * signature is checked, and cheap for replays that meet every registration again.
 */
export function isPrimeOrderKey(pubkey: string): boolean {
  let verdict = verdicts.get(pubkey);
  if (verdict === undefined) {
    verdict = PUBKEY_PATTERN.test(pubkey) && isPrimeOrderPoint(pubkeyBytes(pubkey));
    if (verdicts.size >= verdicts_max) verdicts.clear();
    verdicts.set(pubkey, verdict);
  }
  return verdict;
}

/** libsodium's judgement of 32 raw bytes, uncached: canonical y, on the curve, not of small order, in the prime-order subgroup. */
export function isPrimeOrderPoint(bytes: Uint8Array): boolean {
  return sodium.crypto_core_ed25519_is_valid_point(bytes);
}

// The same key is judged by the authenticator, then by apply in the next tick, and again
// by every replay and proof check that meets it; a verdict costs a map lookup the second time.
const verdicts = new Map<string, boolean>();
const verdicts_max = 100_000;

/** The payload fields through which the identity acts (register, key_backup_register, key_rotate) bring in a key. */
const KEY_FIELDS = ['pubkey', 'backup_pubkey', 'new_pubkey'] as const;

/** The keys a payload brings in, by field; absent and null fields are left out. */
export function publicKeysIn(payload: unknown): Record<string, string> {
  const keys: Record<string, string> = {};
  if (payload === null || typeof payload !== 'object') return keys;
  for (const field of KEY_FIELDS) {
    const value = (payload as Record<string, unknown>)[field];
    if (typeof value === 'string') keys[field] = value;
  }
  return keys;
}

/**
 * The refusal for the first weak key among the fields of an identity act. The API
 * calls it before any signature is checked; apply calls it again, whatever the API
 * checked, so no log can ever carry a weak key.
 */
export function weakKeyRefusal(keys: Record<string, string | null>): Refusal | undefined {
  for (const [field, pubkey] of Object.entries(keys)) {
    if (pubkey !== null && !isPrimeOrderKey(pubkey)) return refuse('WEAK_KEY', undefined, { field });
  }
  return undefined;
}
