import { replayTick } from './apply.js';
import { invariant } from './invariant.js';
import { emptyState, stateFromImage, type SocietyState } from './state.js';
import type { EngineStore } from './store/types.js';

export interface RecoverOptions {
  /** false: ignore snapshots and replay the whole log (restore drills, tests). */
  use_snapshot?: boolean;
  /** Called after each replayed tick, for progress bars on long replays. */
  on_tick?: (tick: number, last_tick: number) => void;
}

/**
 * Rebuilds the state from the store: the latest snapshot, then every logged tick
 * after it. Each regenerated ledger entry must equal the stored one, so a replay
 * that diverges stops at the first differing seq instead of serving a wrong state.
 */
export function recoverState(store: EngineStore, options: RecoverOptions = {}): SocietyState {
  const snapshot = options.use_snapshot === false ? undefined : store.latestSnapshot();
  const state = snapshot ? stateFromImage(snapshot) : emptyState();
  const last_tick = store.lastTick();
  for (const record of store.ticksAfter(state.tick)) {
    for (const entry of replayTick(state, record)) {
      invariant(store.ledgerHash(entry.seq) === entry.hash, `replay diverged from the stored ledger at seq ${entry.seq}`);
    }
    options.on_tick?.(record.tick, last_tick);
  }
  const head = store.ledgerHead();
  invariant(
    head.seq === state.ledger_head.seq && head.hash === state.ledger_head.hash,
    `replayed head ${state.ledger_head.seq} differs from the stored head ${head.seq}`,
  );
  return state;
}
