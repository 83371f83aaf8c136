import { generateKeyPairSync } from 'node:crypto';
import type { Engine } from '../engine/engine.js';
import { agentIdOf } from '../engine/identity.js';

/**
 * A fresh, strong ed25519 public key (base64url) whose private half is thrown away
 * (benches that do not sign). node:crypto makes one in far less time than a
 * scalar multiplication in JavaScript; the engine refuses keys outside the prime-order
 * subgroup, so random bytes will not do.
 */
export function freshPubkey(): string {
  return generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }).x as string;
}

/** Registers `count` members straight through the engine (benches skip HTTP and signatures); returns their ids. */
export async function registerMembers(engine: Engine, count: number, handle_prefix: string): Promise<string[]> {
  const pubkeys = Array.from({ length: count }, freshPubkey);
  const ids = pubkeys.map((pubkey) => agentIdOf(pubkey));
  const registered = await Promise.all(
    pubkeys.map((pubkey, i) =>
      engine.submit({
        act: 'register',
        actor: ids[i]!,
        payload: { pubkey, handle: `${handle_prefix}-${i}`, declared_runtime: '', backup_pubkey: null },
      }),
    ),
  );
  if (!registered.every((outcome) => outcome.ok)) throw new Error('bench registration refused');
  return ids;
}
