import { describe, expect, it } from 'vitest';
import { nobleHasher, type Hash, type Hasher } from '../client/tlog/hasher.js';
import { hashesForAppend } from '../client/tlog/stored_tree.js';
import { LogTree, nativeHasher } from '../engine/index.js';
import {
  hashesAddedBy,
  leafHashesFrom,
  leafHashesIn,
  leavesIn,
  RECORD_LEAVES,
  recordsOf,
} from '../engine/log/tree_batches.js';

/** A tiny deterministic generator, so a failure names its seed and repeats. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1_664_525) + 1_013_904_223) >>> 0;
    return state / 2 ** 32;
  };
}

/** Tree records kept as the store keeps them (tree_batches.ts): a batch's hashes cut into records, each filed under its first leaf. */
class BatchRecords {
  private readonly records = new Map<number, Uint8Array>();
  leaves = 0;

  add(first_leaf: number, hashes: Uint8Array): void {
    for (const { leaf, record } of recordsOf(first_leaf, hashes)) this.records.set(leaf, record);
    this.leaves = first_leaf + leavesIn(first_leaf, hashes);
  }

  treeLeafCount = (): number => this.leaves;

  treeRecord = (leaf: number): Uint8Array | undefined => leafHashesFrom((key) => this.records.get(key), leaf);
}

/** The general append (hashesForAppend over any Hasher), the reference the fast path must equal. */
class ReferenceTree {
  private readonly stored = new Map<string, Hash>();
  size = 0;
  constructor(private readonly hasher: Hasher) {}

  append(texts: string[]): Uint8Array {
    const added: Hash[] = [];
    for (const text of texts) {
      const n = this.size++;
      const leaf = this.hasher.leaf(new TextEncoder().encode(text));
      const hashes = hashesForAppend(this.hasher, n, leaf, (level, m) => this.stored.get(`${level}/${m}`)!);
      hashes.forEach((hash, level) => this.stored.set(`${level}/${n >> level}`, hash));
      added.push(...hashes);
    }
    return Buffer.concat(added);
  }
}

function randomText(next: () => number, index: number): string {
  const alphabet = ['a', 'é', '"', '\\', '\u0000', '😀', '{', ' ', 'Ω'];
  const length = Math.floor(next() * 300);
  let text = `${index}:`;
  for (let i = 0; i < length; i++) text += alphabet[Math.floor(next() * alphabet.length)];
  return text;
}

describe('the tree append fast path', () => {
  it('adds exactly the hashes of the general append, batch after batch, and after reopening on its records', () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const next = generator(seed);
      const records = new BatchRecords();
      let tree = new LogTree(records);
      const reference = new ReferenceTree(nobleHasher);
      for (let batch = 0; batch < 40; batch++) {
        const texts = Array.from({ length: 1 + Math.floor(next() * 40) }, () => randomText(next, reference.size));
        const first = tree.size;
        const made = tree.append(texts);
        expect(Buffer.from(made).toString('hex'), `seed ${seed} batch ${batch}`).toBe(
          Buffer.from(reference.append(texts)).toString('hex'),
        );
        records.add(first, made);
        // Reopened now and then: older hashes then come from the records, not from memory.
        if (next() < 0.2) tree = new LogTree(records);
      }
      expect(tree.size).toBe(reference.size);
    }
  });

  it('stays equal once its ring of recent hashes has wrapped (more than 131,072 hashes)', () => {
    const records = new BatchRecords();
    const tree = new LogTree(records);
    const reference = new ReferenceTree(nativeHasher);
    const next = generator(9);
    for (let batch = 0; batch < 70; batch++) {
      const texts = Array.from({ length: 1_000 + Math.floor(next() * 50) }, (_, i) => `entry ${reference.size + i}`);
      const first = tree.size;
      const made = tree.append(texts);
      expect(Buffer.compare(made, reference.append(texts)), `batch ${batch}`).toBe(0);
      records.add(first, made);
    }
    expect(tree.size).toBeGreaterThan(70_000);
    // A proof now reads hashes older than the ring from the records.
    expect(tree.inclusionProof(3, tree.size).length).toBeGreaterThan(15);
  });
});

describe('tree records kept one per tick', () => {
  it('find every leaf of a batch, and count the leaves a batch holds, wherever it starts', () => {
    const next = generator(7);
    for (let trial = 0; trial < 200; trial++) {
      const first_leaf = Math.floor(next() * 100_000);
      const count = 1 + Math.floor(next() * 64);
      const per_leaf = Array.from({ length: count }, (_, i) =>
        new Uint8Array(hashesAddedBy(first_leaf + i) * 32).fill((first_leaf + i) % 251),
      );
      const record = Buffer.concat(per_leaf);
      expect(leavesIn(first_leaf, record)).toBe(count);
      per_leaf.forEach((hashes, i) =>
        expect(
          Buffer.from(leafHashesIn(first_leaf, record, first_leaf + i)!).equals(hashes),
          `leaf ${first_leaf + i}`,
        ).toBe(true),
      );
      expect(leafHashesIn(first_leaf, record, first_leaf + count)).toBeUndefined();
      expect(leafHashesIn(first_leaf, record, first_leaf - 1)).toBeUndefined();
    }
  });

  it('cut a batch where it starts and at every multiple of RECORD_LEAVES, and find each leaf by exact reads', () => {
    const next = generator(11);
    for (let trial = 0; trial < 100; trial++) {
      const records = new Map<number, Uint8Array>();
      const expected = new Map<number, Uint8Array>();
      let leaf = Math.floor(next() * 1_000);
      // Batches of random sizes, one after another, as ticks append them.
      for (let batch = 0; batch < 8; batch++) {
        const count = 1 + Math.floor(next() * 3 * RECORD_LEAVES);
        const per_leaf = Array.from({ length: count }, (_, i) =>
          new Uint8Array(hashesAddedBy(leaf + i) * 32).fill((leaf + i) % 251),
        );
        per_leaf.forEach((hashes, i) => expected.set(leaf + i, hashes));
        for (const cut of recordsOf(leaf, Buffer.concat(per_leaf))) {
          expect(leavesIn(cut.leaf, cut.record)).toBeLessThanOrEqual(RECORD_LEAVES);
          expect(cut.leaf === leaf || cut.leaf % RECORD_LEAVES === 0).toBe(true);
          records.set(cut.leaf, cut.record);
        }
        leaf += count;
      }
      const reads: number[] = [];
      const get = (key: number) => {
        reads.push(key);
        return records.get(key);
      };
      for (const [at, hashes] of expected) {
        reads.length = 0;
        // Compared as bytes: a deep equality per leaf was most of this test's time.
        expect(Buffer.from(leafHashesFrom(get, at)!).equals(hashes), `leaf ${at}`).toBe(true);
        expect(reads.length).toBeLessThanOrEqual(RECORD_LEAVES);
      }
      expect(leafHashesFrom(get, leaf)).toBeUndefined();
    }
  });

  it('read stores written one record per leaf, before records were batched', () => {
    const records = new Map<number, Uint8Array>();
    for (let leaf = 0; leaf < 100; leaf++) records.set(leaf, new Uint8Array(hashesAddedBy(leaf) * 32).fill(leaf));
    for (let leaf = 0; leaf < 100; leaf++)
      expect(Buffer.from(leafHashesFrom((key) => records.get(key), leaf)!)).toEqual(Buffer.from(records.get(leaf)!));
  });

  it('count the hashes a leaf adds as 1 + its trailing 1 bits', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 7, 15, 16].map(hashesAddedBy)).toEqual([1, 2, 1, 3, 1, 2, 1, 4, 5, 1]);
  });
});
