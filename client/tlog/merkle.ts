import { HASH_BYTES, hashesEqual, type Hash, type Hasher } from './hasher.js';

/**
 * Checking Merkle proofs offline, exactly as RFC 9162 section 2.1.3.2 (inclusion) and
 * 2.1.4.2 (consistency) write the algorithms, over the RFC 6962 tree. Sizes are
 * numbers: safe up to 2^53 leaves, far beyond any ledger.
 */

/** Does `proof` place the leaf hash at leaf_index in the tree of tree_size leaves whose root is `root`? */
export function verifyInclusion(
  hasher: Hasher,
  leaf_index: number,
  tree_size: number,
  leaf_hash: Hash,
  proof: readonly Hash[],
  root: Hash,
): boolean {
  const computed = rootFromInclusion(hasher, leaf_index, tree_size, leaf_hash, proof);
  return computed !== undefined && hashesEqual(computed, root);
}

/** The root an inclusion proof leads to, or undefined when the proof has the wrong shape for the sizes. */
export function rootFromInclusion(
  hasher: Hasher,
  leaf_index: number,
  tree_size: number,
  leaf_hash: Hash,
  proof: readonly Hash[],
): Hash | undefined {
  const steps = inclusionSteps(hasher, leaf_index, tree_size, leaf_hash, proof);
  return steps === undefined ? undefined : (steps.at(-1)?.parent ?? leaf_hash);
}

/** One step up an inclusion path: the proof's hash joined to the running one, on its left or right, and the parent made. */
export interface InclusionStep {
  sibling: Hash;
  sibling_side: 'left' | 'right';
  parent: Hash;
}

/**
 * The path from a leaf to the root, one step per proof hash (what a page draws), or
 * undefined when the proof has the wrong shape for the sizes. The last parent is the root;
 * a tree of one leaf has no steps and its leaf is its root.
 */
export function inclusionSteps(
  hasher: Hasher,
  leaf_index: number,
  tree_size: number,
  leaf_hash: Hash,
  proof: readonly Hash[],
): InclusionStep[] | undefined {
  if (!isSize(leaf_index) || !isSize(tree_size) || leaf_index >= tree_size) return undefined;
  if (leaf_hash.length !== HASH_BYTES || !proof.every(isHash)) return undefined;
  let fn = leaf_index;
  let sn = tree_size - 1;
  let r = leaf_hash;
  const steps: InclusionStep[] = [];
  for (const p of proof) {
    if (sn === 0) return undefined;
    if (fn % 2 === 1 || fn === sn) {
      r = hasher.node(p, r);
      steps.push({ sibling: p, sibling_side: 'left', parent: r });
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      r = hasher.node(r, p);
      steps.push({ sibling: p, sibling_side: 'right', parent: r });
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? steps : undefined;
}

/**
 * Is the tree of new_size leaves with new_root an append-only extension of the one of
 * old_size leaves with old_root? Equal sizes need equal roots and an empty proof; the
 * empty tree is extended by every tree (RFC 9162 leaves size 0 out: nothing to prove).
 */
export function verifyConsistency(
  hasher: Hasher,
  old_size: number,
  new_size: number,
  old_root: Hash,
  new_root: Hash,
  proof: readonly Hash[],
): boolean {
  if (!isSize(old_size) || !isSize(new_size) || old_size > new_size) return false;
  if (!isHash(old_root) || !isHash(new_root) || !proof.every(isHash)) return false;
  if (old_size === new_size) return proof.length === 0 && hashesEqual(old_root, new_root);
  if (old_size === 0) return proof.length === 0;
  const path = isPowerOfTwo(old_size) ? [old_root, ...proof] : [...proof];
  if (path.length === 0) return false;
  let fn = old_size - 1;
  let sn = new_size - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  let fr = path[0]!;
  let sr = path[0]!;
  for (const c of path.slice(1)) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = hasher.node(c, fr);
      sr = hasher.node(c, sr);
      if (fn % 2 === 0) {
        while (fn % 2 === 0 && fn !== 0) {
          fn = Math.floor(fn / 2);
          sn = Math.floor(sn / 2);
        }
      }
    } else {
      sr = hasher.node(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && hashesEqual(fr, old_root) && hashesEqual(sr, new_root);
}

/**
 * The root of a tree grown one leaf at a time, keeping only the hashes of its largest
 * complete subtrees (at most one per bit of the size): a verifier recomputes the root
 * of a whole log from its leaf hashes in O(log n) memory.
 */
export class CompactRange {
  /** Complete subtree hashes, largest (leftmost) first; their sizes are the bits of `size`. */
  private readonly peaks: Hash[] = [];
  private leaves = 0;

  constructor(private readonly hasher: Hasher) {}

  get size(): number {
    return this.leaves;
  }

  append(leaf_hash: Hash): void {
    let hash = leaf_hash;
    // Each trailing 1 bit of the old size is a complete subtree the new leaf's subtree merges with.
    for (let n = this.leaves; n % 2 === 1; n = Math.floor(n / 2)) hash = this.hasher.node(this.peaks.pop()!, hash);
    this.peaks.push(hash);
    this.leaves++;
  }

  /** RFC 6962's MTH: the peaks folded from the right. */
  root(): Hash {
    if (this.peaks.length === 0) return this.hasher.empty();
    let root = this.peaks[this.peaks.length - 1]!;
    for (let i = this.peaks.length - 2; i >= 0; i--) root = this.hasher.node(this.peaks[i]!, root);
    return root;
  }
}

export function isPowerOfTwo(n: number): boolean {
  return n > 0 && 2 ** Math.round(Math.log2(n)) === n;
}

function isHash(hash: Hash): boolean {
  return hash.length === HASH_BYTES;
}

function isSize(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}
