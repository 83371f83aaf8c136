import { HASH_BYTES } from '../../client/tlog/hasher.js';
import { storedHashIndex } from '../../client/tlog/stored_tree.js';

/**
 * The store keeps the tree hashes of a tick's leaves as one record, filed under the
 * tick's first leaf: one write per tick instead of one per entry. Leaf n's own hashes
 * (its leaf hash, then one per complete subtree it closed) sit in that record at a
 * place the leaf indexes alone determine, since every leaf adds 1 + (trailing 1 bits
 * of n) hashes. A record of a single leaf is the layout stores written before batching
 * used for every leaf, so those read unchanged.
 */

/** How many hashes appending leaf n adds. */
export function hashesAddedBy(n: number): number {
  let count = 1;
  for (let m = n; m % 2 === 1; m = Math.floor(m / 2)) count++;
  return count;
}

/** Leaf `leaf`'s hashes inside the record filed under `first_leaf`, or undefined if the record ends before them. */
export function leafHashesIn(first_leaf: number, record: Uint8Array, leaf: number): Uint8Array | undefined {
  const start = (storedHashIndex(0, leaf) - storedHashIndex(0, first_leaf)) * HASH_BYTES;
  const end = start + hashesAddedBy(leaf) * HASH_BYTES;
  if (leaf < first_leaf || end > record.length) return undefined;
  return record.subarray(start, end);
}

/** How many leaves a record filed under `first_leaf` holds: its hashes counted off leaf by leaf. */
export function leavesIn(first_leaf: number, record: Uint8Array): number {
  let bytes = 0;
  let leaf = first_leaf;
  while (bytes < record.length) bytes += hashesAddedBy(leaf++) * HASH_BYTES;
  return leaf - first_leaf;
}
