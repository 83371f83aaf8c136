import sodium from 'sodium-native';
import { Engine } from '../engine/engine.js';
import { MemoryStore } from '../engine/store/memory_store.js';
import { agentIdOf } from '../engine/identity.js';

const secret_key = Buffer.alloc(sodium.crypto_sign_SECRETKEYBYTES);

/**
 * A fresh, strong ed25519 public key (base64url) whose private half is thrown away
 * (benches that do not sign); the engine refuses keys outside the prime-order subgroup,
 * so random bytes will not do. libsodium, not node:crypto's generateKeyPairSync: Node 20
 * deadlocked once in 10,000-key runs when a collection freed a key job while a key was
 * being exported (the memory probe hung in a mutex, seen with gdb on 2026-11-25).
 */
export function freshPubkey(): string {
  const public_key = Buffer.alloc(sodium.crypto_sign_PUBLICKEYBYTES);
  sodium.crypto_sign_keypair(public_key, secret_key);
  return public_key.toString('base64url');
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

/**
 * A society on the memory store (the apply is the question, not the commit) with `count`
 * members registered; its clock moves a millisecond a reading, and `advance` moves it on.
 */
export async function memorySociety(
  count: number,
  handle_prefix: string,
  params: Record<string, unknown> = {},
): Promise<{ engine: Engine; ids: string[]; advance(ms: number): void }> {
  let now = Date.parse('2026-11-21T10:00:00Z');
  const engine = await Engine.open(
    new MemoryStore(),
    { founder_pubkey: freshPubkey(), world_seed: 'tessera-genesis', params },
    { clock: () => (now += 1) },
  );
  const ids = await registerMembers(engine, count, handle_prefix);
  return { engine, ids, advance: (ms) => (now += ms) };
}
