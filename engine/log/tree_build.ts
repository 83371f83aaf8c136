import { StoreIntegrityError } from '../ledger_integrity.js';
import type { EngineStore } from '../store/types.js';
import { LogTree } from './log_tree.js';
import { nativeHasher } from './native_hasher.js';

/** Leaves appended and stored per batch when the tree is built from a ledger. */
const BUILD_BATCH_LEAVES = 10_000;

/**
 * Opens the ledger's Merkle tree on a store, first building what the store lacks: a
 * store written before the tree existed has none, and a build stopped midway
 * (SIGKILL) resumes where its last batch landed. The tree is derived from the
 * ledger's bytes, so building it is replaying them. A tree longer than the ledger, or
 * whose last leaf is not the last entry's, was not made from this ledger: refused.
 */
export async function openLogTree(
  store: EngineStore,
  on_progress?: (leaves: number, of_leaves: number) => void,
): Promise<LogTree> {
  const head = store.ledgerHead().seq;
  const stored_leaves = store.treeLeafCount();
  if (stored_leaves > head)
    throw new StoreIntegrityError(head, `the Merkle tree holds ${stored_leaves} leaves but the ledger only ${head}`);
  const tree = new LogTree(store);
  if (stored_leaves > 0) {
    const last = store.ledgerJson(stored_leaves)!;
    if (Buffer.compare(tree.leafHash(stored_leaves - 1), nativeHasher.leafOfText(last)) !== 0)
      throw new StoreIntegrityError(
        stored_leaves,
        'the Merkle tree leaf of this entry is not its hash: the tree or the entry was edited',
      );
  }
  let batch: string[] = [];
  const flush = async (): Promise<void> => {
    const first = tree.size;
    await store.appendTreeHashes(first, tree.append(batch));
    batch = [];
    on_progress?.(tree.size, head);
  };
  for (const entry of store.ledgerEntries(stored_leaves + 1)) {
    if (entry.seq > head) break;
    batch.push(entry.json);
    if (batch.length >= BUILD_BATCH_LEAVES) await flush();
  }
  if (batch.length > 0) await flush();
  if (tree.size !== head) throw new StoreIntegrityError(tree.size + 1, `the ledger has a gap before seq ${head}`);
  return tree;
}

/**
 * The first seq, up to through_seq, whose stored tree record is not the one its entry
 * makes, or undefined: the tree rebuilt from the ledger's bytes, leaf by leaf, each
 * record compared as it is made. Records already compared equal serve the rebuild's
 * reads of older hashes, so it needs no second copy of the tree in memory.
 */
export async function firstWrongTreeLeaf(
  store: EngineStore,
  through_seq: number,
  on_progress?: (done: number) => void,
): Promise<number | undefined> {
  const rebuilt = new LogTree({ treeLeafCount: () => 0, treeRecord: (leaf) => store.treeRecord(leaf) });
  for (const entry of store.ledgerEntries(1)) {
    if (entry.seq > through_seq) break;
    const made = rebuilt.append([entry.json]);
    const stored = store.treeRecord(entry.seq - 1);
    if (!stored || Buffer.compare(made, stored) !== 0) return entry.seq;
    if (entry.seq % BUILD_BATCH_LEAVES === 0) {
      on_progress?.(entry.seq);
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
  return rebuilt.size < through_seq ? rebuilt.size + 1 : undefined;
}
