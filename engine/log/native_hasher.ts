import { createHash, hash } from 'node:crypto';
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
  /**
   * The leaf of an entry's served JSON: U+0000 is the one byte 0x00 in UTF-8, so the
   * prefixed text hashes in one call (node:crypto's one-shot hash, faster than a Hash object).
   */
  leafOfText(text) {
    return hash('sha256', `\u0000${text}`, 'buffer');
  },
  node(left, right) {
    const input = Buffer.allocUnsafe(1 + 2 * HASH_BYTES);
    input[0] = 1;
    input.set(left, 1);
    input.set(right, 1 + HASH_BYTES);
    return hash('sha256', input, 'buffer');
  },
  empty() {
    return Uint8Array.from(EMPTY_ROOT);
  },
};
