import { randomBytes } from 'node:crypto';
import type { Engine } from '../engine/engine.js';
import { agentIdOf } from '../engine/identity.js';

/** A well-formed public key: the engine checks format and uniqueness, not curve points, and benches sign nothing. */
export function fakePubkey(): string {
  return randomBytes(32).toString('base64url');
}

/** Registers `count` members straight through the engine (benches skip HTTP and signatures); returns their ids. */
export async function registerMembers(engine: Engine, count: number, handle_prefix: string): Promise<string[]> {
  const pubkeys = Array.from({ length: count }, fakePubkey);
  const ids = pubkeys.map((pubkey) => agentIdOf(pubkey));
  const registered = await Promise.all(pubkeys.map((pubkey, i) => engine.submit({ act: 'register', actor: ids[i]!, payload: { pubkey, handle: `${handle_prefix}-${i}`, declared_runtime: '', backup_pubkey: null } })));
  if (!registered.every((outcome) => outcome.ok)) throw new Error('bench registration refused');
  return ids;
}
