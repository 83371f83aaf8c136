import { hash as sha256 } from 'node:crypto';
import { HASH_BYTES, type Hash } from '../../client/tlog/hasher.js';
import {
  consistencyProof,
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
  /** The hashes leaf n's append added: its leaf hash, then one per complete subtree it closed (tree_batches.ts). */
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
  /** The same memory as a Buffer, for writing hex digests in place (typed-array slices stay the cheaper reads). */
  private readonly ring_writer = Buffer.from(this.ring.buffer);
  private readonly read: StoredHashReader = (level, n) => this.nodeHash(level, n);
  /** An interior node's hash input, 0x01 || left || right, reused by every append. */
  private readonly node_input = Buffer.alloc(1 + 2 * HASH_BYTES);

  constructor(private readonly records: TreeRecords) {
    this.leaves = records.treeLeafCount();
    this.stored_count = this.leaves === 0 ? 0 : storedHashIndex(0, this.leaves);
    this.ring_from = this.stored_count;
    this.node_input[0] = 1;
  }

  /** Leaves appended, including a tick whose commit is not durable yet: readers use the committed head. */
  get size(): number {
    return this.leaves;
  }

  /**
   * Appends the entries' leaves, returning the hashes their appends added, in order:
   * the one record the store keeps for them (tree_batches.ts).
   *
   * This is hashesForAppend (client/tlog/stored_tree.ts) written for the append path of
   * every tick: hashes go to the ring as hex digests written in place, and a node's
   * input is built in one reused buffer, because a Buffer per digest and per node input
   * was most of the tree's cost (bench/PROFILES.md, issue 20). A property test holds
   * it equal to hashesForAppend.
   */
  append(entry_texts: readonly string[]): Uint8Array {
    const first = this.stored_count;
    for (const text of entry_texts) {
      const n = this.leaves;
      let right_at = this.ringOffset(this.stored_count);
      this.ring_writer.write(sha256('sha256', `\u0000${text}`, 'hex'), right_at, 'hex');
      this.stored_count++;
      for (let level = 0, m = n; m % 2 === 1; level++, m = Math.floor(m / 2)) {
        this.copyHash(level, m - 1, 1);
        copy32(this.ring, right_at, this.node_input, 1 + HASH_BYTES);
        right_at = this.ringOffset(this.stored_count);
        this.ring_writer.write(sha256('sha256', this.node_input, 'hex'), right_at, 'hex');
        this.stored_count++;
      }
      this.ring_from = Math.max(this.ring_from, this.stored_count - RECENT_HASHES);
      this.leaves = n + 1;
    }
    return this.ringCopy(first, this.stored_count);
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

  private ringOffset(stored_index: number): number {
    return (stored_index % RECENT_HASHES) * HASH_BYTES;
  }

  /** The stored hashes [from, to) as one array, copied out of the ring (where they may wrap once). */
  private ringCopy(from: number, to: number): Uint8Array {
    const copy = new Uint8Array((to - from) * HASH_BYTES);
    const start = this.ringOffset(from);
    const until_end = Math.min(copy.length, this.ring.length - start);
    copy.set(this.ring.subarray(start, start + until_end));
    if (until_end < copy.length) copy.set(this.ring.subarray(0, copy.length - until_end), until_end);
    return copy;
  }

  /** Copies the hash of the subtree level/n into the node input at `offset`, from the ring when it is there. */
  private copyHash(level: number, n: number, offset: number): void {
    const stored_index = storedHashIndex(level, n);
    if (stored_index >= this.ring_from && stored_index < this.stored_count) {
      copy32(this.ring, this.ringOffset(stored_index), this.node_input, offset);
    } else {
      this.node_input.set(this.nodeHash(level, n), offset);
    }
  }

  private nodeHash(level: number, n: number): Hash {
    const stored_index = storedHashIndex(level, n);
    // The checks build their message only when they fail: this is every proof's inner loop.
    if (stored_index >= this.stored_count)
      throw new InvariantError(`tree hash ${level}/${n} read before it was appended`);
    if (stored_index >= this.ring_from) {
      const at = (stored_index % RECENT_HASHES) * HASH_BYTES;
      // A copy: the ring is overwritten as it wraps, and callers keep what they read.
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

/** Copies one hash between buffers: a plain loop, cheaper for 32 bytes than Buffer#copy or a subarray view. */
function copy32(from: Uint8Array, from_at: number, to: Uint8Array, to_at: number): void {
  for (let i = 0; i < HASH_BYTES; i++) to[to_at + i] = from[from_at + i]!;
}
