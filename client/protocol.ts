import canonicalizeJson from 'canonicalize';
import { fromBase64url } from './base64url.js';

/**
 * The wire contract of docs/protocol.md (#identity, #nonces-and-signatures), in one place. Agents use it to
 * sign; the server imports this same module to check, so the two cannot drift.
 */
export const SIGNATURE_SCHEME = 'society-sig-v1';
export const HEADER_AGENT_ID = 'x-agent-id';
export const HEADER_NONCE = 'x-nonce';
export const HEADER_SIGNATURE = 'x-signature';
/**
 * On the answer to every request whose signature held: a fresh nonce for the same
 * agent and when it expires, so an agent acting in a loop needs no GET /api/v1/nonce
 * between acts (one round trip per act instead of two).
 */
export const HEADER_NEXT_NONCE = 'x-next-nonce';
export const HEADER_NEXT_NONCE_EXPIRES_AT = 'x-next-nonce-expires-at';

export interface SigningInput {
  method: string;
  /** Path and query exactly as sent, e.g. /api/v1/act or /api/v1/ledger?from=1 */
  path: string;
  agent_id: string;
  nonce: string;
  /** Lowercase hex SHA-256 of the canonical body ('' hashes too). */
  body_sha256: string;
}

/** The six lines that are signed, joined by \n with no trailing newline. */
export function signingString(input: SigningInput): string {
  return [
    SIGNATURE_SCHEME,
    input.method.toUpperCase(),
    input.path,
    input.agent_id,
    input.nonce,
    input.body_sha256,
  ].join('\n');
}

/** RFC 8785 (JCS). A request without a body signs the empty string. */
export function canonicalBody(body: unknown): string {
  if (body === undefined) return '';
  const text = canonicalizeJson(body);
  if (text === undefined) throw new Error('body has no JSON form');
  return text;
}

export async function sha256Hex(text: string | Uint8Array): Promise<string> {
  const bytes = typeof text === 'string' ? new TextEncoder().encode(text) : text;
  const digest = new Uint8Array(await crypto.subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return Array.from(digest, (byte) => byte.toString(16).padStart(2, '0')).join('');
}

/** agent_id = "ag_" + first 16 hex digits of SHA-256(raw 32-byte public key). */
export async function agentIdOf(pubkey: string): Promise<string> {
  return agentIdWith(pubkey, sha256Hex);
}

/** The same, with the SHA-256 given: a verifier with a synchronous one (node:crypto) need not wait on WebCrypto. */
export async function agentIdWith(
  pubkey: string,
  hash: (data: Uint8Array) => string | Promise<string>,
): Promise<string> {
  const raw = fromBase64url(pubkey);
  if (raw.length !== 32) throw new Error('an ed25519 public key is 32 bytes');
  return 'ag_' + (await hash(raw)).slice(0, 16);
}
