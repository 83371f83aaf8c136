import type { Hash, Hasher } from './hasher.js';

/**
 * A Merkle tree kept as the list of its complete subtree hashes, in the order they
 * become known, the layout of golang.org/x/mod/sumdb/tlog (BSD licence) that
 * Go's transparency logs use: appending leaf n adds its leaf hash and then the hash
 * of every complete subtree it closes, so the list only ever grows at its end (one
 * append-only table in the store, about two hashes per leaf), and every complete,
 * aligned subtree of any size is one read. Roots and proofs for any size up to the
 * current one are built from O(log n) of these reads.
 */

/**
 * Reads the hash of the complete subtree at `level` over leaves [n * 2^level, (n + 1) * 2^level):
 * one stored hash (a table lookup, or a recent one held in memory). Where it sits in the
 * list is storedHashIndex(level, n); a store may also file it under the leaf that completed
 * it, (n + 1) * 2^level - 1, as the level-th hash that leaf's append added.
 */
export type StoredHashReader = (level: number, n: number) => Hash;

/** Where the hash of the complete subtree at `level` covering leaves [n * 2^level, (n + 1) * 2^level) is stored. */
export function storedHashIndex(level: number, n: number): number {
  // Level L's n'th hash is written right after level L-1's (2n+1)'th one: walk down to level 0.
  for (let l = level; l > 0; l--) n = 2 * n + 1;
  // Level 0's n'th hash follows n + n/2 + n/4 + ... hashes of all levels.
  let index = 0;
  for (; n > 0; n = Math.floor(n / 2)) index += n;
  return index + level;
}

/** How many hashes a tree of `size` leaves stores. */
export function storedHashCount(size: number): number {
  if (size === 0) return 0;
  let count = storedHashIndex(0, size - 1) + 1;
  for (let n = size - 1; n % 2 === 1; n = Math.floor(n / 2)) count++;
  return count;
}

/**
 * The hashes appending leaf n (0-based) adds, in order: its leaf hash, then one per
 * trailing 1 bit of n, each the node over the complete subtree to its left and the
 * one just made. They go at storedHashIndex(0, n) onward, contiguously.
 */
export function hashesForAppend(hasher: Hasher, n: number, leaf_hash: Hash, read: StoredHashReader): Hash[] {
  const hashes = [leaf_hash];
  let hash = leaf_hash;
  for (let level = 0, m = n; m % 2 === 1; level++, m = Math.floor(m / 2)) {
    hash = hasher.node(read(level, m - 1), hash);
    hashes.push(hash);
  }
  return hashes;
}

/**
 * RFC 6962's MTH(D[lo:hi]) for lo a multiple of the largest power of two not above
 * hi - lo (true of every range the proofs below ask for): the range split into
 * complete subtrees, largest first, each one stored read, folded from the right.
 */
export function subtreeHash(hasher: Hasher, lo: number, hi: number, read: StoredHashReader): Hash {
  if (hi <= lo) return hasher.empty();
  const parts: Hash[] = [];
  while (lo < hi) {
    const level = floorLog2(hi - lo);
    const width = 2 ** level;
    if (lo % width !== 0) throw new Error(`tlog: range [${lo}, ${hi}) is not aligned`);
    parts.push(read(level, lo / width));
    lo += width;
  }
  let hash = parts[parts.length - 1]!;
  for (let i = parts.length - 2; i >= 0; i--) hash = hasher.node(parts[i]!, hash);
  return hash;
}

/** The root of the tree of its first `size` leaves. */
export function treeHash(hasher: Hasher, size: number, read: StoredHashReader): Hash {
  return subtreeHash(hasher, 0, size, read);
}

/** RFC 6962 section 2.1.1's PATH(leaf_index, D[0:tree_size]): the audit path of one leaf. */
export function inclusionProof(hasher: Hasher, leaf_index: number, tree_size: number, read: StoredHashReader): Hash[] {
  if (!(leaf_index >= 0 && leaf_index < tree_size)) throw new RangeError('leaf_index must be below tree_size');
  const proof: Hash[] = [];
  path(hasher, leaf_index, 0, tree_size, read, proof);
  return proof.reverse();
}

/** Collects PATH(m, D[lo:hi]) from the root down; the caller reverses it into the leaf-up order of the RFC. */
function path(hasher: Hasher, m: number, lo: number, hi: number, read: StoredHashReader, out: Hash[]): void {
  while (hi - lo > 1) {
    const k = largestPowerOfTwoBelow(hi - lo);
    if (m < lo + k) {
      out.push(subtreeHash(hasher, lo + k, hi, read));
      hi = lo + k;
    } else {
      out.push(subtreeHash(hasher, lo, lo + k, read));
      lo += k;
    }
  }
}

/** RFC 6962 section 2.1.2's PROOF(old_size, D[0:new_size]); empty when the sizes are equal or the old tree empty. */
export function consistencyProof(hasher: Hasher, old_size: number, new_size: number, read: StoredHashReader): Hash[] {
  if (!(old_size >= 0 && old_size <= new_size)) throw new RangeError('old_size must be at most new_size');
  if (old_size === 0 || old_size === new_size) return [];
  const proof: Hash[] = [];
  subproof(hasher, old_size, 0, new_size, true, read, proof);
  return proof.reverse();
}

/** SUBPROOF(m, D[lo:hi], b) with the recursion unrolled; collected root-down like path(). */
function subproof(
  hasher: Hasher,
  m: number,
  lo: number,
  hi: number,
  complete: boolean,
  read: StoredHashReader,
  out: Hash[],
): void {
  for (;;) {
    if (m === hi - lo) {
      if (!complete) out.push(subtreeHash(hasher, lo, hi, read));
      return;
    }
    const k = largestPowerOfTwoBelow(hi - lo);
    if (m <= k) {
      out.push(subtreeHash(hasher, lo + k, hi, read));
      hi = lo + k;
    } else {
      out.push(subtreeHash(hasher, lo, lo + k, read));
      m -= k;
      lo += k;
      complete = false;
    }
  }
}

/** The largest power of two strictly below n (n at least 2): RFC 6962's k. */
function largestPowerOfTwoBelow(n: number): number {
  const k = 2 ** floorLog2(n);
  return k === n ? k / 2 : k;
}

/** floor(log2(n)) for n at least 1, exact where Math.log2 rounds (just below a large power of two). */
function floorLog2(n: number): number {
  let level = Math.floor(Math.log2(n));
  while (2 ** level > n) level--;
  while (2 ** (level + 1) <= n) level++;
  return level;
}
