import { createHash } from 'node:crypto';
import { HASH_BYTES, type Hash, type Hasher } from '../../client/tlog/hasher.js';

const LEAF_PREFIX = new Uint8Array([0]);
const EMPTY_ROOT = createHash('sha256').digest();

/**
 * RFC 6962 hashing on the runtime's native SHA-256, for the server's appends and
 * proofs (several times the pure-JS hasher's speed). It must equal nobleHasher byte
 * for byte; test/log_tree.test.ts holds the two equal.
 */
export const nativeHasher: Hasher & { leafOfText(text: string): Hash } = {
  leaf(entry) {
    return createHash('sha256').update(LEAF_PREFIX).update(entry).digest();
  },
  /** The leaf of an entry's served JSON, hashed as its UTF-8 bytes without a copy. */
  leafOfText(text) {
    return createHash('sha256').update(LEAF_PREFIX).update(text, 'utf8').digest();
  },
  node(left, right) {
    const input = Buffer.allocUnsafe(1 + 2 * HASH_BYTES);
    input[0] = 1;
    input.set(left, 1);
    input.set(right, 1 + HASH_BYTES);
    return createHash('sha256').update(input).digest();
  },
  empty() {
    return Uint8Array.from(EMPTY_ROOT);
  },
};
