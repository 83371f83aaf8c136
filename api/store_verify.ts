import { LedgerChecker, type WireEntry } from '../client/ledger_check.js';
import {
  sha256Hex,
  isPrimeOrderKey,
  firstWrongTreeLeaf,
  StoreIntegrityError,
  recoverState,
  stateHash,
  type LedgerHead,
  type SocietyState,
  type EngineStore,
} from '../engine/index.js';
import { SignatureVerifier } from './signature_verifier.js';

export interface StoreVerifyOptions {
  /** Also check every proof against the keys registered earlier on the ledger (one ed25519 verify per signed entry). */
  proofs: boolean;
  on_progress?: (progress: { step: 'replay' | 'proofs' | 'tree'; done: number; total: number }) => void;
}

export type StoreVerification =
  | {
      ok: true;
      entries_checked: number;
      proofs_checked: boolean;
      ticks: number;
      head: LedgerHead;
      state_hash: string;
      state: SocietyState;
    }
  | { ok: false; first_bad_seq: number; reason: string };

/**
 * The whole check of a store, for `tessera-operator replay` and restore drills: the
 * state is rebuilt from the log alone and every entry it regenerates must equal the
 * stored one byte for byte (recoverState), and, with proofs, every stored entry is
 * run through the verifier's own recipe (client/ledger_check.ts: chain, hash, each
 * proof against the key registered earlier, no nonce used twice) with node:crypto
 * doing the signature arithmetic. The answer names the lowest seq either step
 * found wrong; then the Merkle tree is rebuilt from the ledger and must equal the
 * stored one record for record. Reads only.
 */
export async function verifyStore(store: EngineStore, options: StoreVerifyOptions): Promise<StoreVerification> {
  let state: SocietyState | undefined;
  let failure: { first_bad_seq: number; reason: string } | undefined;
  try {
    state = recoverState(store, {
      use_snapshot: false,
      on_tick: (tick, last_tick) => options.on_progress?.({ step: 'replay', done: tick, total: last_tick }),
    });
  } catch (error) {
    if (!(error instanceof StoreIntegrityError)) throw error;
    failure = { first_bad_seq: error.seq, reason: error.reason };
  }
  if (options.proofs) {
    const problem = await firstProofProblem(
      store,
      failure?.first_bad_seq ?? Number.MAX_SAFE_INTEGER,
      options.on_progress,
    );
    if (problem && (!failure || problem.seq < failure.first_bad_seq))
      failure = { first_bad_seq: problem.seq, reason: problem.reason };
  }
  // A store written before the tree has none yet (it is built from the ledger when served): nothing to compare.
  const head_seq = state?.ledger_head.seq ?? 0;
  if (!failure && store.treeLeafCount() > 0) {
    const wrong = await firstWrongTreeLeaf(store, head_seq, (done) =>
      options.on_progress?.({ step: 'tree', done, total: head_seq }),
    );
    if (wrong !== undefined)
      failure = {
        first_bad_seq: wrong,
        reason: 'its Merkle tree record is not the one the ledger makes (the tree was edited)',
      };
  }
  if (failure || !state) return { ok: false, ...(failure ?? { first_bad_seq: 1, reason: 'the store did not replay' }) };
  return {
    ok: true,
    entries_checked: state.ledger_head.seq,
    proofs_checked: options.proofs,
    ticks: state.tick,
    head: { ...state.ledger_head },
    state_hash: stateHash(state),
    state,
  };
}

const PROGRESS_EVERY_ENTRIES = 1000;

/** The verifier's recipe over stored entries before `before_seq`; the first problem, if any. */
export async function firstProofProblem(
  store: EngineStore,
  before_seq: number,
  on_progress: StoreVerifyOptions['on_progress'],
): Promise<{ seq: number; reason: string } | undefined> {
  const signatures = new SignatureVerifier();
  const checker = new LedgerChecker({
    sha256Hex,
    verifySignature: (key, text, signature) => signatures.verify(key, text, signature),
    isPrimeOrderKey,
  });
  const total = store.ledgerHead().seq;
  for (const { seq, json } of store.ledgerEntries(1)) {
    if (seq >= before_seq) break;
    let entry: WireEntry;
    try {
      entry = JSON.parse(json) as WireEntry;
    } catch {
      return { seq, reason: 'the stored text is not JSON' };
    }
    const problem = await checker.check(entry);
    if (problem) return problem;
    if (seq % PROGRESS_EVERY_ENTRIES === 0) on_progress?.({ step: 'proofs', done: seq, total });
  }
  on_progress?.({ step: 'proofs', done: checker.checked, total });
  return undefined;
}
