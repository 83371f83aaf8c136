import canonicalizeJson from 'canonicalize';
import { LedgerChecker, type Problem, type WireEntry } from '../../client/ledger_check.js';
import { sha256Hex } from '../../client/protocol.js';

/** What `tessera-agent verify` would report first on a ledger held in memory. */
export async function firstProblem(chain: WireEntry[]): Promise<Problem | undefined> {
  const checker = new LedgerChecker();
  for (const entry of chain) {
    const problem = await checker.check(entry);
    if (problem) return problem;
  }
  return undefined;
}

/**
 * What an operator with write access to the store can do: after editing entries
 * in place, recompute every hash and link from `from_index` on, so the chain is
 * whole again and only the proofs can tell.
 */
export async function rehashFrom(chain: WireEntry[], from_index: number): Promise<WireEntry[]> {
  for (let i = from_index; i < chain.length; i++) {
    const entry = chain[i]!;
    entry.seq = i + 1;
    entry.prev_hash = i > 0 ? chain[i - 1]!.hash : '0'.repeat(64);
    const { hash: _old, ...unhashed } = entry;
    entry.hash = await sha256Hex(canonicalizeJson(unhashed)!);
  }
  return chain;
}

/** Appends an invented entry to a copy of the chain, hashed and linked like a real one. */
export async function withInvented(
  chain: WireEntry[],
  entry: Omit<WireEntry, 'seq' | 'prev_hash' | 'hash'>,
): Promise<WireEntry[]> {
  const forged = structuredClone(chain);
  forged.push({ ...structuredClone(entry), seq: 0, prev_hash: '', hash: '' });
  return rehashFrom(forged, forged.length - 1);
}
