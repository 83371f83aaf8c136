import { sha256 } from '@noble/hashes/sha2.js';

/** A SHA-256 Merkle tree node or leaf hash: 32 bytes. */
export type Hash = Uint8Array;

/**
 * RFC 6962 hashing, section 2.1: a leaf is SHA-256(0x00 || entry), an interior node
 * SHA-256(0x01 || left || right); the two prefixes keep a leaf from passing for a
 * node. Injected, so the verifiers run anywhere (this pure-JS one) while the server
 * appends with its runtime's native SHA-256 (engine/log/native_hasher.ts).
 */
export interface Hasher {
  leaf(entry: Uint8Array): Hash;
  node(left: Hash, right: Hash): Hash;
  /** The root of the empty tree: SHA-256 of nothing. */
  empty(): Hash;
}

export const HASH_BYTES = 32;

/** The hasher of RFC 6962 on @noble/hashes: no Node-only API, for clients in any JavaScript runtime. */
export const nobleHasher: Hasher = {
  leaf(entry) {
    const input = new Uint8Array(entry.length + 1);
    input.set(entry, 1);
    return sha256(input);
  },
  node(left, right) {
    const input = new Uint8Array(1 + 2 * HASH_BYTES);
    input[0] = 1;
    input.set(left, 1);
    input.set(right, 1 + HASH_BYTES);
    return sha256(input);
  },
  empty() {
    return sha256(new Uint8Array(0));
  },
};

export function hashesEqual(a: Hash, b: Hash): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}
