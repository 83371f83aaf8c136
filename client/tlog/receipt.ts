import canonicalizeJson from 'canonicalize';
import type { WireEntry } from '../ledger_check.js';
import { sha256Hex } from '../protocol.js';
import { fromBase64, toBase64 } from './base64.js';
import { hashesEqual, nobleHasher, type Hasher } from './hasher.js';
import { rootFromInclusion } from './merkle.js';
import { openCheckpoint, type OpenedCheckpoint } from './trusted_checkpoint.js';

/**
 * What an act's answer carries (and GET /log/receipt/<seq> serves): the entry that
 * opened the act, exactly as the ledger holds it, a signed checkpoint, and the
 * inclusion proof from the entry's leaf to that checkpoint's root.
 */
export interface Receipt {
  leaf_index: number;
  entry: string;
  checkpoint: string;
  inclusion_proof: string[];
}

export type ReceiptCheck =
  | { ok: true; leaf_index: number; checkpoint: OpenedCheckpoint; entry: WireEntry }
  | { ok: false; reason: string };

/**
 * Checks a receipt with nothing but the log's verifier key: no network. The
 * checkpoint must be signed by that key, and the proof must lead from SHA-256(0x00 ||
 * entry) at leaf_index to the checkpoint's root; the entry must also be a ledger
 * entry whose seq is leaf_index + 1 and whose own hash is right, so a receipt cannot
 * pass off some other leaf's bytes as the act.
 */
export async function verifyReceipt(
  receipt: unknown,
  vkey: string,
  hasher: Hasher = nobleHasher,
): Promise<ReceiptCheck> {
  const fail = (reason: string): ReceiptCheck => ({ ok: false, reason });
  const shape = receiptShapeProblem(receipt);
  if (shape) return fail(`not a receipt: ${shape}`);
  const { leaf_index, entry, checkpoint, inclusion_proof } = receipt as Receipt;

  const opened = await openCheckpoint(checkpoint, vkey);
  if (!opened.ok) return fail(opened.reason);
  if (leaf_index >= opened.checkpoint.size)
    return fail(`leaf_index ${leaf_index} is not in the checkpoint's tree of ${opened.checkpoint.size} leaves`);

  let proof: Uint8Array[];
  try {
    proof = inclusion_proof.map(fromBase64);
  } catch {
    return fail('inclusion_proof holds a hash that is not standard base64');
  }
  const leaf_hash = hasher.leaf(new TextEncoder().encode(entry));
  const root = rootFromInclusion(hasher, leaf_index, opened.checkpoint.size, leaf_hash, proof);
  if (root === undefined)
    return fail(`the inclusion proof has the wrong length for leaf ${leaf_index} of ${opened.checkpoint.size}`);
  if (!hashesEqual(root, opened.checkpoint.root))
    return fail(
      `the inclusion proof does not lead from the entry's leaf hash to the checkpoint's root (it leads to ${toBase64(root)})`,
    );

  const parsed = await ledgerEntryProblem(entry, leaf_index);
  if (typeof parsed === 'string') return fail(parsed);
  return { ok: true, leaf_index, checkpoint: opened.checkpoint, entry: parsed };
}

function receiptShapeProblem(receipt: unknown): string | undefined {
  if (!receipt || typeof receipt !== 'object') return 'not a JSON object';
  const r = receipt as Partial<Receipt>;
  if (!Number.isSafeInteger(r.leaf_index) || r.leaf_index! < 0) return 'leaf_index is not a non-negative integer';
  if (typeof r.entry !== 'string') return 'entry is not a string';
  if (typeof r.checkpoint !== 'string') return 'checkpoint is not a string';
  if (!Array.isArray(r.inclusion_proof) || !r.inclusion_proof.every((h) => typeof h === 'string'))
    return 'inclusion_proof is not a list of strings';
  return undefined;
}

/**
 * The entry parsed, or why it is not the ledger entry at seq leaf_index + 1 with a
 * sound own hash (SHA-256 of its JCS text without the hash, docs/protocol.md#the-ledger).
 */
export async function ledgerEntryProblem(text: string, leaf_index: number): Promise<WireEntry | string> {
  let entry: WireEntry;
  try {
    entry = JSON.parse(text) as WireEntry;
  } catch {
    return 'the entry is not JSON';
  }
  if (!entry || typeof entry !== 'object' || Array.isArray(entry)) return 'the entry is not a JSON object';
  if (entry.seq !== leaf_index + 1)
    return `the entry's seq is ${String(entry.seq)}, but leaf ${leaf_index} holds seq ${leaf_index + 1}`;
  const { hash, ...unhashed } = entry;
  const canonical = canonicalizeJson(unhashed);
  if (canonical === undefined || (await sha256Hex(canonical)) !== hash)
    return "the entry's hash does not match its content";
  return entry;
}
