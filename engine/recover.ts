import { replayTick } from './apply.js';
import { checkStoredChain, regeneratedEntryProblem, StoreIntegrityError } from './ledger_integrity.js';
import { emptyState, stateFromImage, type SocietyState } from './state.js';
import type { EngineStore } from './store/types.js';

export interface RecoverOptions {
  /** false: ignore snapshots and replay the whole log (replay, restore drills, tests). */
  use_snapshot?: boolean;
  /** Called after each replayed tick, for progress bars on long replays. */
  on_tick?: (tick: number, last_tick: number) => void;
  /** Called after each stored entry the snapshot stands for is checked. */
  on_entry_checked?: (seq: number, through_seq: number) => void;
}

/**
 * Rebuilds the state from the store: the latest snapshot, then every logged tick
 * after it. No stored entry is taken on trust. Those the snapshot stands for are
 * checked as a chain (canonical text, own hash, link to the previous one) up to the
 * snapshot's head; every entry the log regenerates after it must equal the stored
 * one byte for byte. The first wrong entry stops the recovery with a
 * StoreIntegrityError naming its seq, instead of serving a state nobody wrote.
 */
export function recoverState(store: EngineStore, options: RecoverOptions = {}): SocietyState {
  const snapshot = options.use_snapshot === false ? undefined : store.latestSnapshot();
  const state = snapshot ? stateFromImage(snapshot) : emptyState();
  const through_seq = state.ledger_head.seq;
  const checked = checkStoredChain(store.ledgerEntries(1), through_seq, (seq) => options.on_entry_checked?.(seq, through_seq));
  if (checked.hash !== state.ledger_head.hash) {
    throw new StoreIntegrityError(through_seq, `differs from the head recorded by the snapshot of tick ${state.tick}: the ledger up to here was rewritten (a full replay names the first rewritten entry)`);
  }
  const last_tick = store.lastTick();
  const ticks = store.ticksAfter(state.tick)[Symbol.iterator]();
  for (;;) {
    const next_seq = state.ledger_head.seq + 1;
    let entries;
    let tick: number;
    try {
      const next = ticks.next();
      if (next.done) break;
      tick = next.value.tick;
      entries = replayTick(state, next.value);
    } catch (error) {
      throw new StoreIntegrityError(next_seq, `the log after tick ${state.tick} does not replay: ${(error as Error).message}`);
    }
    for (const entry of entries) {
      const problem = regeneratedEntryProblem(store.ledgerJson(entry.seq), entry);
      if (problem) throw new StoreIntegrityError(entry.seq, problem);
    }
    options.on_tick?.(tick, last_tick);
  }
  const head = store.ledgerHead();
  if (head.seq > state.ledger_head.seq) {
    throw new StoreIntegrityError(state.ledger_head.seq + 1, `the store holds entries up to seq ${head.seq} but the log (up to tick ${state.tick}) produces only ${state.ledger_head.seq}`);
  }
  return state;
}
