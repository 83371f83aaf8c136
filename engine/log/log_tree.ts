import { HASH_BYTES, type Hash } from '../../client/tlog/hasher.js';
import {
  consistencyProof,
  hashesForAppend,
  inclusionProof,
  storedHashIndex,
  treeHash,
  type StoredHashReader,
} from '../../client/tlog/stored_tree.js';
import { InvariantError } from '../invariant.js';
import { nativeHasher } from './native_hasher.js';

/** The part of the store that keeps the tree: per leaf, the hashes its append added (32 bytes each). */
export interface TreeRecords {
  /** How many leaves have their records stored. */
  treeLeafCount(): number;
  /** The hashes leaf n's append added: its leaf hash, then one per complete subtree it closed. */
  treeRecord(leaf: number): Uint8Array | undefined;
}

/** Hashes kept in memory: enough for every tick still in flight, many times over (4 MiB). */
const RECENT_HASHES = 1 << 17;

/** Tiles are 256 hashes wide and step 8 tree levels at a time (C2SP tlog-tiles). */
export const TILE_WIDTH = 256;
export const TILE_HEIGHT = 8;

/**
 * The ledger as an RFC 6962 Merkle tree: leaf i is entry seq i + 1's served JSON.
 * Appending happens in the tick, with the entries (the records go to the store in
 * the tick's commit); roots, proofs and tiles are read at any size up to the
 * current one. Hashes appended lately are held in memory, for they may not be in
 * the store yet (a commit in flight) and are the ones proofs for new acts need;
 * older ones are read from the store. The tree is derived from the ledger alone:
 * replaying the ledger's bytes rebuilds it exactly (see rebuild in the engine).
 */
export class LogTree {
  private leaves: number;
  /** Stored-hash index of the next hash appended; the ring holds indexes [ring_from, stored_count). */
  private stored_count: number;
  private ring_from: number;
  private readonly ring = new Uint8Array(RECENT_HASHES * HASH_BYTES);
  private readonly read: StoredHashReader = (level, n) => this.nodeHash(level, n);

  constructor(private readonly records: TreeRecords) {
    this.leaves = records.treeLeafCount();
    this.stored_count = this.leaves === 0 ? 0 : storedHashIndex(0, this.leaves);
    this.ring_from = this.stored_count;
  }

  /** Leaves appended, including a tick whose commit is not durable yet: readers use the committed head. */
  get size(): number {
    return this.leaves;
  }

  /**
   * Appends the entries' leaves, returning per entry the record the store keeps
   * (its hashes, concatenated), in the entries' order.
   */
  append(entry_texts: readonly string[]): Uint8Array[] {
    return entry_texts.map((text) => {
      const n = this.leaves;
      const hashes = hashesForAppend(nativeHasher, n, nativeHasher.leafOfText(text), this.read);
      const record = new Uint8Array(hashes.length * HASH_BYTES);
      hashes.forEach((hash, level) => {
        record.set(hash, level * HASH_BYTES);
        this.remember(this.stored_count++, hash);
      });
      this.leaves = n + 1;
      return record;
    });
  }

  root(size: number): Hash {
    this.requireSize(size);
    return treeHash(nativeHasher, size, this.read);
  }

  leafHash(leaf_index: number): Hash {
    this.requireSize(leaf_index + 1);
    return this.read(0, leaf_index);
  }

  inclusionProof(leaf_index: number, size: number): Hash[] {
    this.requireSize(size);
    return inclusionProof(nativeHasher, leaf_index, size, this.read);
  }

  consistencyProof(old_size: number, new_size: number): Hash[] {
    this.requireSize(new_size);
    return consistencyProof(nativeHasher, old_size, new_size, this.read);
  }

  /**
   * The tlog-tiles tile at `level`, `index`, `width` hashes wide: the hashes of tree level
   * level * 8, nodes index * 256 onward; every one must be complete in the tree.
   */
  tile(level: number, index: number, width: number): Uint8Array {
    if (!(Number.isSafeInteger(level) && level >= 0 && width >= 1 && width <= TILE_WIDTH))
      throw new RangeError('bad tile coordinates');
    const tree_level = level * TILE_HEIGHT;
    const first = index * TILE_WIDTH;
    if ((first + width) * 2 ** tree_level > this.leaves)
      throw new RangeError(`tile ${level}/${index}.p/${width} is not complete at size ${this.leaves}`);
    const tile = new Uint8Array(width * HASH_BYTES);
    for (let i = 0; i < width; i++) tile.set(this.read(tree_level, first + i), i * HASH_BYTES);
    return tile;
  }

  private requireSize(size: number): void {
    if (!(Number.isSafeInteger(size) && size >= 0 && size <= this.leaves))
      throw new RangeError(`tree size ${size} is outside 0..${this.leaves}`);
  }

  private remember(stored_index: number, hash: Hash): void {
    this.ring.set(hash, (stored_index % RECENT_HASHES) * HASH_BYTES);
    this.ring_from = Math.max(this.ring_from, stored_index + 1 - RECENT_HASHES);
  }

  private nodeHash(level: number, n: number): Hash {
    const stored_index = storedHashIndex(level, n);
    // The checks build their message only when they fail: this is every proof's inner loop.
    if (stored_index >= this.stored_count)
      throw new InvariantError(`tree hash ${level}/${n} read before it was appended`);
    if (stored_index >= this.ring_from) {
      const at = (stored_index % RECENT_HASHES) * HASH_BYTES;
      return this.ring.slice(at, at + HASH_BYTES);
    }
    // Filed under the leaf that completed the subtree, as the level-th hash its append added.
    const leaf = (n + 1) * 2 ** level - 1;
    const record = this.records.treeRecord(leaf);
    if (record === undefined || record.length < (level + 1) * HASH_BYTES)
      throw new InvariantError(`tree record of leaf ${leaf} missing`);
    return record.subarray(level * HASH_BYTES, (level + 1) * HASH_BYTES);
  }
}
