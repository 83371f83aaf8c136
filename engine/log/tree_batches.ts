import { HASH_BYTES } from '../../client/tlog/hasher.js';
import { storedHashIndex } from '../../client/tlog/stored_tree.js';

/**
 * How the store files the tree's hashes: a tick's leaves are kept as records of up to
 * RECORD_LEAVES leaves each, cut where the tick starts and at every multiple of
 * RECORD_LEAVES, each filed under its first leaf. That is a sixteenth of the writes of
 * one record per leaf, while a read copies at most one small record (a tick-long record
 * made proofs of old entries copy ~100 KB per hash: bench/PROFILES.md, issue 20). Leaf
 * n's own hashes (its leaf hash, then one per complete subtree it closed) sit in its
 * record at a place the leaf indexes alone determine, since each leaf adds 1 + (trailing 1
 * bits of n) hashes. A one-leaf record is what stores written before batching hold for
 * every leaf, so those read unchanged.
 */
export const RECORD_LEAVES = 16;

/** How many hashes appending leaf n adds. */
export function hashesAddedBy(n: number): number {
  let count = 1;
  for (let m = n; m % 2 === 1; m = Math.floor(m / 2)) count++;
  return count;
}

/** Leaf `leaf`'s hashes inside the record filed under `first_leaf`, or undefined if the record does not hold them. */
export function leafHashesIn(first_leaf: number, record: Uint8Array, leaf: number): Uint8Array | undefined {
  if (leaf < first_leaf) return undefined;
  const start = (storedHashIndex(0, leaf) - storedHashIndex(0, first_leaf)) * HASH_BYTES;
  const end = start + hashesAddedBy(leaf) * HASH_BYTES;
  return end > record.length ? undefined : record.subarray(start, end);
}

/** How many leaves a record filed under `first_leaf` holds: its hashes counted off leaf by leaf. */
export function leavesIn(first_leaf: number, record: Uint8Array): number {
  let bytes = 0;
  let leaf = first_leaf;
  while (bytes < record.length) bytes += hashesAddedBy(leaf++) * HASH_BYTES;
  return leaf - first_leaf;
}

/** The records to file for the hashes of leaves from `first_leaf` on (LogTree.append's output), with their keys. */
export function recordsOf(first_leaf: number, hashes: Uint8Array): { leaf: number; record: Uint8Array }[] {
  const records: { leaf: number; record: Uint8Array }[] = [];
  let start = 0;
  let record_leaf = first_leaf;
  let at = 0;
  for (let leaf = first_leaf; at < hashes.length; leaf++) {
    if (leaf !== record_leaf && leaf % RECORD_LEAVES === 0) {
      records.push({ leaf: record_leaf, record: hashes.subarray(start, at) });
      [start, record_leaf] = [at, leaf];
    }
    at += hashesAddedBy(leaf) * HASH_BYTES;
  }
  if (at !== hashes.length) throw new Error('tree hashes end inside a leaf');
  if (at > start) records.push({ leaf: record_leaf, record: hashes.subarray(start, at) });
  return records;
}

/**
 * Leaf `leaf`'s hashes from a table of records filed as above: the record at the
 * leaf's multiple of RECORD_LEAVES holds it unless a tick started after that multiple,
 * and then the record of that tick's start does, at most RECORD_LEAVES - 1 below it.
 * Exact reads only (no ordered scan): one, or a few when a tick started nearby.
 */
export function leafHashesFrom(get: (leaf: number) => Uint8Array | undefined, leaf: number): Uint8Array | undefined {
  const aligned = leaf - (leaf % RECORD_LEAVES);
  const at_aligned = get(aligned);
  const found = at_aligned && leafHashesIn(aligned, at_aligned, leaf);
  if (found) return found;
  for (let start = leaf; start > aligned; start--) {
    const record = get(start);
    if (record) return leafHashesIn(start, record, leaf);
  }
  return undefined;
}
