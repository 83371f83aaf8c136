import { replayTick } from './apply.js';
import { checkStoredChain, regeneratedEntryProblem, StoreIntegrityError } from './ledger_integrity.js';
import { emptyState, stateFromImage, stateHash, type SocietyState } from './state.js';
import type { EngineStore } from './store/types.js';

export interface RecoverOptions {
  /** false: ignore snapshots and replay the whole log (replay, restore drills, tests). */
  use_snapshot?: boolean;
  /** Called after each replayed tick, for progress bars on long replays. */
  on_tick?: (tick: number, last_tick: number) => void;
  /** Called after each stored entry the snapshot stands for is checked. */
  on_entry_checked?: (seq: number, through_seq: number) => void;
  /**
   * Go on from this state (restored elsewhere, from a backup) instead of a snapshot or
   * genesis: the log after its tick is replayed onto it, in place, each regenerated
   * entry checked against this store's. The entries up to its head are the caller's
   * to check. A restore drill replays the live log onto a restored backup this way.
   */
  from_state?: SocietyState;
  /** Stop after this tick (replay in stretches, or up to a point the caller saw). */
  until_tick?: number;
}

/**
 * Rebuilds the state from the store: the latest snapshot, then every logged tick
 * after it. No stored entry is taken on trust. Those the snapshot stands for are
 * checked as a chain (canonical text, own hash, link to the previous one) up to the
 * snapshot's head; every entry the log regenerates after it must equal the stored
 * one byte for byte. Nor is the snapshot taken on trust: a snapshot is the state
 * itself, so an edit to it alone (an agent's handle, a vote) would be served with
 * the ledger untouched. The log from the snapshot before it (or from genesis) must
 * produce it, which costs one snapshot interval of replay; a full replay compares
 * every kept snapshot. The first wrong entry or snapshot stops the recovery with a
 * StoreIntegrityError naming a seq, instead of serving a state nobody wrote.
 */
export function recoverState(store: EngineStore, options: RecoverOptions = {}): SocietyState {
  const until_tick = options.until_tick ?? store.lastTick();
  if (options.from_state) return replayLog(store, options.from_state, until_tick, [], options.on_tick);
  if (options.use_snapshot === false)
    return replayLog(store, emptyState(), until_tick, store.snapshotTicks(), options.on_tick);
  const snapshot_ticks = store.snapshotTicks();
  const newest = snapshot_ticks.at(-1);
  const snapshot = newest === undefined ? undefined : store.snapshotAt(newest);
  const state = snapshot ? stateFromImage(snapshot) : emptyState();
  const through_seq = state.ledger_head.seq;
  const checked = checkStoredChain(store.ledgerEntries(1), through_seq, (seq) =>
    options.on_entry_checked?.(seq, through_seq),
  );
  if (checked.hash !== state.ledger_head.hash) {
    throw new StoreIntegrityError(
      through_seq,
      `differs from the head recorded by the snapshot of tick ${state.tick}: the ledger up to here was rewritten (a full replay names the first rewritten entry)`,
    );
  }
  if (newest !== undefined) {
    const previous = snapshot_ticks.at(-2);
    const previous_image = previous === undefined ? undefined : store.snapshotAt(previous);
    const replayed = replayLog(store, previous_image ? stateFromImage(previous_image) : emptyState(), newest, [newest]);
    if (replayed.tick !== newest)
      throw new StoreIntegrityError(
        replayed.ledger_head.seq + 1,
        `the log ends at tick ${replayed.tick}, before the snapshot of tick ${newest}`,
      );
  }
  return replayLog(store, state, until_tick, [], options.on_tick);
}

/**
 * Replays the logged ticks after the state's own up to until_tick, each regenerated
 * entry checked against the stored one byte for byte; at each tick in
 * snapshot_ticks, the stored snapshot must hash as the replayed state does.
 */
function replayLog(
  store: EngineStore,
  state: SocietyState,
  until_tick: number,
  snapshot_ticks: number[],
  on_tick?: RecoverOptions['on_tick'],
): SocietyState {
  const compare_at = new Set(snapshot_ticks);
  const ticks = store.ticksAfter(state.tick)[Symbol.iterator]();
  for (;;) {
    const next_seq = state.ledger_head.seq + 1;
    let entries;
    let tick: number;
    try {
      const next = ticks.next();
      if (next.done || next.value.tick > until_tick) break;
      tick = next.value.tick;
      entries = replayTick(state, next.value);
    } catch (error) {
      // A record that names a damaged entry says which one (engine/store/record_bytes.ts).
      if (error instanceof StoreIntegrityError) throw error;
      throw new StoreIntegrityError(
        next_seq,
        `the log after tick ${state.tick} does not replay: ${(error as Error).message}`,
      );
    }
    for (const entry of entries) {
      const problem = regeneratedEntryProblem(store.ledgerJson(entry.seq), entry);
      if (problem) throw new StoreIntegrityError(entry.seq, problem);
    }
    if (compare_at.has(tick)) {
      const image = store.snapshotAt(tick);
      if (image && stateHash(stateFromImage(image)) !== stateHash(state)) {
        throw new StoreIntegrityError(
          state.ledger_head.seq,
          `the snapshot of tick ${tick} is not the state the log produces at that tick: the snapshot was edited (the ledger up to here is sound)`,
        );
      }
    }
    on_tick?.(tick, store.lastTick());
  }
  if (until_tick < store.lastTick()) return state;
  const head = store.ledgerHead();
  if (head.seq > state.ledger_head.seq) {
    throw new StoreIntegrityError(
      state.ledger_head.seq + 1,
      `the store holds entries up to seq ${head.seq} but the log (up to tick ${state.tick}) produces only ${state.ledger_head.seq}`,
    );
  }
  return state;
}
