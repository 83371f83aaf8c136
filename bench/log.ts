import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { rootFromInclusion } from '../client/tlog/merkle.js';
import { LogTree } from '../engine/log/log_tree.js';
import { nativeHasher } from '../engine/log/native_hasher.js';
import { LmdbStore } from '../engine/store/lmdb_store.js';
import { growSociety } from '../test/helpers/grown_society.js';
import { benchReads, type ReadComparison, type ReadTarget } from './load.js';
import { opsPerSecond } from './measure.js';

/** A full level-0 tile (8 KiB of leaf hashes) and a full entry bundle, as a tlog-tiles client fetches them. */
export const TILE_ROWS: ReadTarget[] = [{ path: '/log/tile/0/000' }, { path: '/log/tile/entries/000' }];

/**
 * Tile reads over HTTP, the server beside bare node:http answering the same bytes
 * (bench/load.ts' harness), on a society grown past one full tile.
 */
export async function benchTileReads(): Promise<Record<string, ReadComparison>> {
  return benchReads(TILE_ROWS, async (dir) => {
    await growSociety(dir, { entries: 600, members: 100 });
  });
}

/**
 * Inclusion proofs generated from the tree as stored (LMDB records, read back by a tree
 * opened afresh, so nothing comes from the in-memory ring of recent hashes), beside
 * what checking one costs a client: the root recomputed from the same proof, one
 * SHA-256 node hash per proof hash. Random leaves of a tree of `leaves` leaves.
 */
export async function benchInclusionProofs(leaves = 100_000): Promise<{ generated: number; checked: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-proofs-'));
  const store = new LmdbStore(join(dir, 'store'));
  try {
    const writer = new LogTree(store);
    const batch_leaves = 10_000;
    for (let first = 0; first < leaves; first += batch_leaves) {
      const texts = Array.from({ length: Math.min(batch_leaves, leaves - first) }, (_, i) =>
        JSON.stringify({ seq: first + i + 1, type: 'bench_entry', padding: 'x'.repeat(200) }),
      );
      await store.appendTreeHashes(first, writer.append(texts));
    }
    const stored = new LogTree(store);
    const root = stored.root(leaves);
    const queries = Array.from({ length: 1024 }, (_, i) => (i * 7919 * 13) % leaves);
    const proofs = queries.map((leaf) => ({
      leaf,
      leaf_hash: stored.leafHash(leaf),
      proof: stored.inclusionProof(leaf, leaves),
    }));
    for (const { leaf, leaf_hash, proof } of proofs) {
      const computed = rootFromInclusion(nativeHasher, leaf, leaves, leaf_hash, proof);
      if (!computed || Buffer.compare(computed, root) !== 0)
        throw new Error(`bench proof of leaf ${leaf} does not verify`);
    }
    let next = 0;
    const rates = await opsPerSecond([
      {
        name: 'generated',
        ops_per_call: 1,
        fn: () => stored.inclusionProof(queries[next++ % queries.length]!, leaves),
      },
      {
        name: 'checked',
        ops_per_call: 1,
        fn: () => {
          const { leaf, leaf_hash, proof } = proofs[next++ % proofs.length]!;
          return rootFromInclusion(nativeHasher, leaf, leaves, leaf_hash, proof);
        },
      },
    ]);
    return { generated: rates.generated!, checked: rates.checked! };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
