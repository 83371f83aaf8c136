import { fromBase64, toBase64 } from '../../../client/tlog/base64.js';
import { parseCheckpoint } from '../../../client/tlog/checkpoint.js';
import { hashesEqual, nobleHasher } from '../../../client/tlog/hasher.js';
import { inclusionSteps } from '../../../client/tlog/merkle.js';
import { parseNote } from '../../../client/tlog/note.js';
import type { Receipt } from '../../../client/tlog/receipt.js';
import type { InclusionPath } from '../../../render/pages/ledger_pages.js';

/**
 * The path a receipt proves, recomputed here rather than taken on trust, so the page shows
 * what a verifier would compute. The checkpoint's signature is not checked here: the
 * receipt's JSON link and `tessera-agent verify` do that with the log's key.
 */
export function inclusionPathOf(receipt: Receipt): InclusionPath | null {
  const checkpoint = parseCheckpoint(parseNote(receipt.checkpoint).text);
  const leaf_hash = nobleHasher.leaf(new TextEncoder().encode(receipt.entry));
  const proof = receipt.inclusion_proof.map(fromBase64);
  const steps = inclusionSteps(nobleHasher, receipt.leaf_index, checkpoint.size, leaf_hash, proof);
  if (steps === undefined) return null;
  const root = steps.at(-1)?.parent ?? leaf_hash;
  return {
    leaf_index: receipt.leaf_index,
    leaf_hash: toBase64(leaf_hash),
    steps: steps.map((step) => ({
      sibling: toBase64(step.sibling),
      sibling_side: step.sibling_side,
      parent: toBase64(step.parent),
    })),
    checkpoint: { origin: checkpoint.origin, size: checkpoint.size, root_hash: toBase64(checkpoint.root_hash) },
    reaches_root: hashesEqual(root, checkpoint.root_hash),
  };
}
