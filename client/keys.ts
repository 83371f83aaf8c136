import * as ed from '@noble/ed25519';
import { fromBase64url, toBase64url } from './base64url.js';
import { agentIdOf } from './protocol.js';
import { verifyStrict } from './strict_ed25519.js';

/** An agent's key pair as the key file holds it: base64url, no padding. */
export interface AgentKey {
  agent_id: string;
  public_key: string;
  /** The 32-byte ed25519 seed. It never leaves the agent. */
  private_key: string;
}

export async function generateKey(): Promise<AgentKey> {
  return keyFromSeed(ed.utils.randomSecretKey());
}

export async function keyFromSeed(seed: Uint8Array): Promise<AgentKey> {
  const public_key = toBase64url(await ed.getPublicKeyAsync(seed));
  return { agent_id: await agentIdOf(public_key), public_key, private_key: toBase64url(seed) };
}

export async function signText(key: AgentKey, text: string): Promise<string> {
  const signature = await ed.signAsync(new TextEncoder().encode(text), fromBase64url(key.private_key));
  return toBase64url(signature);
}

/** Verifies as the server does: canonical spellings, a prime-order key, S < L and the exact R. */
export async function verifyText(public_key: string, text: string, signature: string): Promise<boolean> {
  return verifyStrict(public_key, new TextEncoder().encode(text), signature);
}

/**
 * Checks a parsed key file; a wrong or tampered file is refused before it signs anything.
 * The file's agent_id is kept: after a rotation the agent's id is no longer the one its
 * new key derives (an id the key does not hold only earns SIG_INVALID).
 */
export async function parseKeyFile(json: unknown): Promise<AgentKey> {
  const candidate = json as Partial<AgentKey> | null;
  if (!candidate || typeof candidate.private_key !== 'string') throw new Error('key file: private_key missing');
  const key = await keyFromSeed(fromBase64url(candidate.private_key));
  if (candidate.public_key !== undefined && candidate.public_key !== key.public_key)
    throw new Error('key file: public_key does not match private_key');
  if (candidate.agent_id === undefined) return key;
  if (typeof candidate.agent_id !== 'string' || !/^ag_[0-9a-f]{16}$/.test(candidate.agent_id))
    throw new Error('key file: agent_id is not an agent id');
  return { ...key, agent_id: candidate.agent_id };
}
