import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { nobleHasher as hasher, type Hash } from '../client/tlog/hasher.js';
import { CompactRange, verifyConsistency, verifyInclusion } from '../client/tlog/merkle.js';
import {
  consistencyProof,
  hashesForAppend,
  inclusionProof,
  storedHashCount,
  storedHashIndex,
  treeHash,
  type StoredHashReader,
} from '../client/tlog/stored_tree.js';

interface Vectors {
  leaf_inputs_hex: string[];
  leaf_hashes_hex: string[];
  root_hashes_hex_by_size: string[];
  inclusion_proofs: { leaf_index: number; tree_size: number; proof_hex: string[] }[];
  consistency_proofs: { old_size: number; new_size: number; proof_hex: string[] }[];
}
const vectors = JSON.parse(
  readFileSync(new URL('./fixtures/rfc6962_vectors.json', import.meta.url), 'utf8'),
) as Vectors;
const fromHex = (hex: string): Hash => Uint8Array.from(Buffer.from(hex, 'hex'));
const toHex = (hash: Hash): string => Buffer.from(hash).toString('hex');

/** A tree in the stored-hash layout, in memory: what the store holds, appended the way the engine appends. */
function storedTree(leaf_hashes: Hash[]): StoredHashReader {
  const stored: Hash[] = [];
  const read: StoredHashReader = (level, n) => {
    const hash = stored[storedHashIndex(level, n)];
    if (!hash) throw new Error(`no stored hash at level ${level}, ${n}`);
    return hash;
  };
  leaf_hashes.forEach((leaf, n) => {
    expect(stored.length).toBe(storedHashIndex(0, n));
    stored.push(...hashesForAppend(hasher, n, leaf, read));
    expect(stored.length).toBe(storedHashCount(n + 1));
  });
  return read;
}

/**
 * RFC 6962 section 2.1 written as its recursive definitions over a list of leaf hashes,
 * independent of the stored layout; MTH memoised by range so a few hundred sizes stay quick.
 */
function referenceTree(leaves: Hash[]) {
  const memo = new Map<string, Hash>();
  const k = (n: number): number => {
    let k = 1;
    while (k * 2 < n) k *= 2;
    return k;
  };
  const mth = (lo: number, hi: number): Hash => {
    const key = `${lo}:${hi}`;
    let hash = memo.get(key);
    if (!hash) {
      if (hi - lo === 0) hash = hasher.empty();
      else if (hi - lo === 1) hash = leaves[lo]!;
      else hash = hasher.node(mth(lo, lo + k(hi - lo)), mth(lo + k(hi - lo), hi));
      memo.set(key, hash);
    }
    return hash;
  };
  const path = (m: number, lo: number, hi: number): Hash[] => {
    if (hi - lo <= 1) return [];
    const split = lo + k(hi - lo);
    return m < split ? [...path(m, lo, split), mth(split, hi)] : [...path(m, split, hi), mth(lo, split)];
  };
  const subproof = (m: number, lo: number, hi: number, complete: boolean): Hash[] => {
    if (m === hi - lo) return complete ? [] : [mth(lo, hi)];
    const half = k(hi - lo);
    return m <= half
      ? [...subproof(m, lo, lo + half, complete), mth(lo + half, hi)]
      : [...subproof(m - half, lo + half, hi, false), mth(lo, lo + half)];
  };
  return {
    root: (size: number) => mth(0, size),
    path: (index: number, size: number) => path(index, 0, size),
    consistency: (old_size: number, new_size: number) => subproof(old_size, 0, new_size, true),
  };
}

describe('RFC 6962 hashing against the transparency-dev reference vectors', () => {
  const leaves = vectors.leaf_inputs_hex.map((hex) => hasher.leaf(fromHex(hex)));
  const read = storedTree(leaves);

  it('hashes each leaf input to the published leaf hash', () => {
    expect(leaves.map(toHex)).toEqual(vectors.leaf_hashes_hex);
  });

  it('gives the published root for every size, from the stored layout and from a compact range', () => {
    const range = new CompactRange(hasher);
    vectors.root_hashes_hex_by_size.forEach((root, size) => {
      expect(toHex(treeHash(hasher, size, read)), `size ${size}`).toBe(root);
      expect(toHex(range.root()), `size ${size}`).toBe(root);
      if (size < leaves.length) range.append(leaves[size]!);
    });
  });

  it('builds the published inclusion proofs, and they verify', () => {
    for (const vector of vectors.inclusion_proofs) {
      const proof = inclusionProof(hasher, vector.leaf_index, vector.tree_size, read);
      expect(proof.map(toHex)).toEqual(vector.proof_hex);
      const root = fromHex(vectors.root_hashes_hex_by_size[vector.tree_size]!);
      expect(
        verifyInclusion(hasher, vector.leaf_index, vector.tree_size, leaves[vector.leaf_index]!, proof, root),
      ).toBe(true);
    }
  });

  it('builds the published consistency proofs, and they verify', () => {
    for (const vector of vectors.consistency_proofs) {
      const proof = consistencyProof(hasher, vector.old_size, vector.new_size, read);
      expect(proof.map(toHex)).toEqual(vector.proof_hex);
      const roots = vectors.root_hashes_hex_by_size.map(fromHex);
      expect(
        verifyConsistency(
          hasher,
          vector.old_size,
          vector.new_size,
          roots[vector.old_size]!,
          roots[vector.new_size]!,
          proof,
        ),
      ).toBe(true);
    }
  });

  it('refuses every corruption of an inclusion proof the reference suite tries', () => {
    const { leaf_index, tree_size, proof_hex } = vectors.inclusion_proofs[1]!;
    const proof = proof_hex.map(fromHex);
    const root = fromHex(vectors.root_hashes_hex_by_size[tree_size]!);
    const leaf = leaves[leaf_index]!;
    const flipped = proof.map((_, i) =>
      proof.map((hash, j) => (i === j ? hash.map((b, at) => (at === 0 ? b ^ 8 : b)) : hash)),
    );
    const probes: [number, number, Hash, Hash[], Hash][] = [
      [leaf_index - 1, tree_size, leaf, proof, root],
      [leaf_index + 1, tree_size, leaf, proof, root],
      [leaf_index ^ 2, tree_size, leaf, proof, root],
      [leaf_index, tree_size * 2, leaf, proof, root],
      [leaf_index, tree_size / 2, leaf, proof, root],
      [leaf_index, tree_size, hasher.leaf(new TextEncoder().encode('WrongLeaf')), proof, root],
      [leaf_index, tree_size, leaf, proof, hasher.empty()],
      [leaf_index, tree_size, leaf, [...proof, new Uint8Array()], root],
      [leaf_index, tree_size, leaf, [...proof, root], root],
      [leaf_index, tree_size, leaf, [root, ...proof], root],
      [leaf_index, tree_size, leaf, proof.slice(0, -1), root],
      ...flipped.map((bad): [number, number, Hash, Hash[], Hash] => [leaf_index, tree_size, leaf, bad, root]),
    ];
    for (const [index, size, leaf_hash, bad, expected] of probes)
      expect(verifyInclusion(hasher, index, size, leaf_hash, bad, expected)).toBe(false);
  });

  it('refuses every corruption of a consistency proof the reference suite tries', () => {
    const { old_size, new_size, proof_hex } = vectors.consistency_proofs[2]!;
    const proof = proof_hex.map(fromHex);
    const roots = vectors.root_hashes_hex_by_size.map(fromHex);
    const [old_root, new_root] = [roots[old_size]!, roots[new_size]!];
    const probes: [number, number, Hash, Hash, Hash[]][] = [
      [old_size - 1, new_size, old_root, new_root, proof],
      [old_size + 1, new_size, old_root, new_root, proof],
      [old_size ^ 2, new_size, old_root, new_root, proof],
      [old_size, new_size * 2, old_root, new_root, proof],
      [old_size, new_size / 2, old_root, new_root, proof],
      [old_size, new_size, new_root, old_root, proof],
      [old_size, new_size, old_root, new_root, []],
      [old_size, new_size, old_root, new_root, [...proof, old_root]],
      [old_size, new_size, old_root, new_root, [proof[0]!, ...proof]],
      [old_size, new_size, old_root, new_root, proof.slice(0, -1)],
    ];
    for (const [m, n, a, b, bad] of probes) expect(verifyConsistency(hasher, m, n, a, b, bad)).toBe(false);
    // Sizes that need no proof, and a shrinking tree.
    expect(verifyConsistency(hasher, 0, 5, old_root, new_root, [])).toBe(true);
    expect(verifyConsistency(hasher, 5, 5, new_root, new_root, [])).toBe(true);
    expect(verifyConsistency(hasher, 5, 5, old_root, new_root, [])).toBe(false);
    expect(verifyConsistency(hasher, 8, 6, new_root, old_root, proof)).toBe(false);
  });
});

describe('proofs for every pair of sizes, against an independent fold', () => {
  // Every shape a tree takes up to 128 leaves and past it (each power of two is a new split): the pairs grow
  // with the square of this, and 300 cost four times the time for shapes already covered.
  const size_max = 160;
  const leaves = Array.from({ length: size_max }, (_, i) => hasher.leaf(new TextEncoder().encode(`entry ${i}`)));
  const read = storedTree(leaves);
  const reference = referenceTree(leaves);
  const roots = Array.from({ length: size_max + 1 }, (_, size) => reference.root(size));

  it('gives the reference root at every size', () => {
    for (let size = 0; size <= size_max; size++) expect(toHex(treeHash(hasher, size, read))).toBe(toHex(roots[size]!));
  });

  it('gives the reference audit path for every leaf of every size, and it verifies', () => {
    for (let size = 1; size <= size_max; size++) {
      for (let index = 0; index < size; index++) {
        const proof = inclusionProof(hasher, index, size, read);
        // Joined and compared as one string: a deep equality per proof made this loop most of the file's time.
        expect(proof.map(toHex).join(' ')).toBe(reference.path(index, size).map(toHex).join(' '));
        expect(verifyInclusion(hasher, index, size, leaves[index]!, proof, roots[size]!)).toBe(true);
        if (size > 1)
          expect(verifyInclusion(hasher, index, size, leaves[(index + 1) % size]!, proof, roots[size]!)).toBe(false);
      }
    }
  });

  it('gives the reference consistency proof for every pair of sizes, and it verifies', () => {
    for (let new_size = 1; new_size <= size_max; new_size++) {
      for (let old_size = 1; old_size < new_size; old_size++) {
        const proof = consistencyProof(hasher, old_size, new_size, read);
        expect(proof.map(toHex).join(' ')).toBe(reference.consistency(old_size, new_size).map(toHex).join(' '));
        expect(verifyConsistency(hasher, old_size, new_size, roots[old_size]!, roots[new_size]!, proof)).toBe(true);
        // A forked history: the same old size with another root never verifies.
        expect(verifyConsistency(hasher, old_size, new_size, roots[old_size - 1]!, roots[new_size]!, proof)).toBe(
          false,
        );
      }
    }
  });
});

describe('the stored layout at sizes no test tree reaches', () => {
  it("keeps each leaf's hashes contiguous, the subtrees it completes right after it, up to 2^40 leaves", () => {
    for (const n of [2 ** 31 - 1, 2 ** 32 - 1, 2 ** 32, 2 ** 40 - 1, 2 ** 40 + 5]) {
      let trailing_ones = 0;
      for (let m = n; m % 2 === 1; m = Math.floor(m / 2)) trailing_ones++;
      expect(storedHashIndex(0, n + 1), `n ${n}`).toBe(storedHashIndex(0, n) + 1 + trailing_ones);
      expect(storedHashCount(n + 1), `n ${n}`).toBe(storedHashIndex(0, n + 1));
      if (trailing_ones > 0)
        expect(storedHashIndex(trailing_ones, Math.floor(n / 2 ** trailing_ones))).toBe(
          storedHashIndex(0, n) + trailing_ones,
        );
    }
  });
});
