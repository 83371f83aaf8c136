import { randomBytes } from 'node:crypto';
import { Point } from '@noble/ed25519';
import type { Engine } from '../engine/engine.js';
import { agentIdOf } from '../engine/identity.js';

/** The order of the prime-order subgroup (RFC 8032's L). */
const L = 2n ** 252n + 27742317777372353535851937790883648493n;

/**
 * A strong public key nobody holds the private key of (benches sign nothing): a
 * random multiple of the base point, since the engine refuses keys outside the
 * prime-order subgroup. A multiple of the base point costs far less than a key pair.
 */
export function fakePubkey(): string {
  const scalar = (BigInt('0x' + randomBytes(40).toString('hex')) % (L - 1n)) + 1n;
  return Buffer.from(Point.BASE.multiply(scalar).toBytes()).toString('base64url');
}

/** Registers `count` members straight through the engine (benches skip HTTP and signatures); returns their ids. */
export async function registerMembers(engine: Engine, count: number, handle_prefix: string): Promise<string[]> {
  const pubkeys = Array.from({ length: count }, fakePubkey);
  const ids = pubkeys.map((pubkey) => agentIdOf(pubkey));
  const registered = await Promise.all(pubkeys.map((pubkey, i) => engine.submit({ act: 'register', actor: ids[i]!, payload: { pubkey, handle: `${handle_prefix}-${i}`, declared_runtime: '', backup_pubkey: null } })));
  if (!registered.every((outcome) => outcome.ok)) throw new Error('bench registration refused');
  return ids;
}
