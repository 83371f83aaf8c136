import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from 'lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import { nobleHasher } from '../client/tlog/hasher.js';
import { CompactRange, verifyConsistency, verifyInclusion } from '../client/tlog/merkle.js';
import {
  Engine,
  LmdbStore,
  MemoryStore,
  nativeHasher,
  StoreIntegrityError,
  type EngineStore,
} from '../engine/index.js';
import { memoryEngine, registered } from './helpers/memory_engine.js';

const folders: string[] = [];
afterEach(() => {
  for (const folder of folders.splice(0)) rmSync(folder, { recursive: true, force: true });
});

function tempFolder(): string {
  const folder = mkdtempSync(join(tmpdir(), 'tessera-tree-'));
  folders.push(folder);
  return folder;
}

/** The root of the ledger's first `size` entries, folded independently from their bytes with the pure-JS hasher. */
function rootOfLedger(store: EngineStore, size: number): Uint8Array {
  const range = new CompactRange(nobleHasher);
  for (const entry of store.ledgerEntries(1)) {
    if (entry.seq > size) break;
    range.append(nobleHasher.leaf(new TextEncoder().encode(entry.json)));
  }
  return range.root();
}

describe('the native hasher', () => {
  it('hashes leaves and nodes exactly as the pure-JS one', () => {
    for (let length = 0; length < 300; length += 7) {
      const bytes = Uint8Array.from({ length }, (_, i) => (i * 31 + length) % 256);
      expect(Buffer.from(nativeHasher.leaf(bytes))).toEqual(Buffer.from(nobleHasher.leaf(bytes)));
      const text = `entry é ${length} ${'x'.repeat(length)}`;
      expect(Buffer.from(nativeHasher.leafOfText(text))).toEqual(
        Buffer.from(nobleHasher.leaf(new TextEncoder().encode(text))),
      );
      const [left, right] = [nobleHasher.leaf(bytes), nobleHasher.leaf(bytes.subarray(1))];
      expect(Buffer.from(nativeHasher.node(left, right))).toEqual(Buffer.from(nobleHasher.node(left, right)));
    }
    expect(Buffer.from(nativeHasher.empty())).toEqual(Buffer.from(nobleHasher.empty()));
  });
});

describe('the ledger as a Merkle tree, kept by the engine', () => {
  it('grows with every committed entry, and its roots and proofs match an independent fold of the ledger', async () => {
    const { engine, store } = await memoryEngine();
    for (let i = 0; i < 40; i++) await registered(engine, `member-${i}`);
    const size = store.ledgerHead().seq;
    expect(engine.log_tree.size).toBe(size);
    expect(store.treeLeafCount()).toBe(size);
    const roots = new Map<number, Uint8Array>();
    for (const n of [1, 2, 3, 4, 5, 6, 7, 8, 9, size - 6, size - 1, size]) roots.set(n, rootOfLedger(store, n));
    for (const n of [1, 2, 7, 8, 9, size - 1, size]) {
      expect(Buffer.from(engine.log_tree.root(n)), `size ${n}`).toEqual(Buffer.from(roots.get(n)!));
      for (const index of [0, Math.floor(n / 2), n - 1]) {
        const leaf = nobleHasher.leaf(new TextEncoder().encode(store.ledgerJson(index + 1)!));
        const proof = engine.log_tree.inclusionProof(index, n);
        expect(verifyInclusion(nobleHasher, index, n, leaf, proof, roots.get(n)!)).toBe(true);
      }
      const old = n > 9 ? size - 6 : Math.max(1, n - 5);
      const proof = engine.log_tree.consistencyProof(old, n);
      expect(verifyConsistency(nobleHasher, old, n, roots.get(old)!, roots.get(n)!, proof)).toBe(true);
    }
    expect(() => engine.log_tree.root(size + 1)).toThrow(RangeError);
  });

  it('serves level-0 tiles of the leaf hashes and refuses a tile not yet complete', async () => {
    const { engine, store } = await memoryEngine();
    for (let i = 0; i < 10; i++) await registered(engine, `member-${i}`);
    const size = store.ledgerHead().seq;
    const tile = engine.log_tree.tile(0, 0, size);
    for (let i = 0; i < size; i++)
      expect(Buffer.from(tile.subarray(i * 32, i * 32 + 32))).toEqual(
        Buffer.from(nobleHasher.leaf(new TextEncoder().encode(store.ledgerJson(i + 1)!))),
      );
    expect(() => engine.log_tree.tile(0, 0, size + 1)).toThrow(RangeError);
    expect(() => engine.log_tree.tile(1, 0, 1)).toThrow(RangeError);
  });
});

describe('building the tree for a store written before it existed', () => {
  async function storeWithoutTree(path: string): Promise<{ records: Uint8Array[]; roots: Uint8Array[] }> {
    const store = new LmdbStore(path);
    const { engine } = await memoryEngine({ store });
    for (let i = 0; i < 30; i++) await registered(engine, `member-${i}`);
    await engine.drain();
    const size = store.ledgerHead().seq;
    const records = Array.from({ length: size }, (_, leaf) => Uint8Array.from(store.treeRecord(leaf)!));
    const roots = [1, size >> 1, size].map((n) => engine.log_tree.root(n));
    await store.close();
    // What a store written before the tree holds: everything but the tree database.
    const root = open({ path, maxDbs: 8 });
    await root.openDB({ name: 'tree', keyEncoding: 'uint32', encoding: 'binary' }).drop();
    await root.close();
    return { records, roots };
  }

  it('builds the same records and roots from the ledger alone, with progress, and resumes a build cut short', async () => {
    const path = tempFolder();
    const before = await storeWithoutTree(path);
    const store = new LmdbStore(path);
    expect(store.treeLeafCount()).toBe(0);
    // A build cut short after its first records: the next open goes on from there.
    await store.appendTreeHashes(0, Buffer.concat(before.records.slice(0, 5)));
    const progress: number[] = [];
    const { engine } = await memoryEngine({ store, on_tree_build: (leaves) => progress.push(leaves) });
    const size = store.ledgerHead().seq;
    expect(progress.at(-1)).toBe(size);
    expect(store.treeLeafCount()).toBe(size);
    for (let leaf = 0; leaf < size; leaf++)
      expect(Buffer.from(store.treeRecord(leaf)!), `leaf ${leaf}`).toEqual(Buffer.from(before.records[leaf]!));
    expect([1, size >> 1, size].map((n) => Buffer.from(engine.log_tree.root(n)))).toEqual(
      before.roots.map((root) => Buffer.from(root)),
    );
    await store.close();
  });

  it('refuses a tree longer than the ledger, or one whose last leaf is not the last entry', async () => {
    const path = tempFolder();
    const before = await storeWithoutTree(path);
    const size = before.records.length;
    let store = new LmdbStore(path);
    await store.appendTreeHashes(0, Buffer.concat([...before.records, before.records[0]!]));
    await expect(Engine.open(store, {}, { clock: () => 0 })).rejects.toThrow(StoreIntegrityError);
    await store.close();
    const root = open({ path, maxDbs: 8 });
    await root.openDB({ name: 'tree', keyEncoding: 'uint32', encoding: 'binary' }).drop();
    await root.close();
    store = new LmdbStore(path);
    // The last leaf's own hash (the first of its hashes) replaced by another's.
    const edited = Buffer.concat(before.records);
    edited.set(before.records[0]!, edited.length - before.records[size - 1]!.length);
    await store.appendTreeHashes(0, edited);
    await expect(Engine.open(store, {}, { clock: () => 0 })).rejects.toThrow(/Merkle tree leaf/);
    await store.close();
  });
});

describe('the memory store', () => {
  it('keeps the tree like LMDB does', async () => {
    const store = new MemoryStore();
    const { engine } = await memoryEngine({ store });
    await registered(engine, 'ada');
    expect(store.treeLeafCount()).toBe(store.ledgerHead().seq);
  });
});
