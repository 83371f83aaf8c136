import { z } from 'zod';
import { sha256Hex } from './canonical.js';

/** A raw 32-byte ed25519 public key in base64url without padding is 43 characters. */
export const PUBKEY_PATTERN = /^[A-Za-z0-9_-]{42}[AEIMQUYcgkosw048]$/;
/** A public key field of any schema. */
export const PubkeySchema = z.string().regex(PUBKEY_PATTERN, 'must be a base64url (no padding) ed25519 public key of 43 characters');

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
