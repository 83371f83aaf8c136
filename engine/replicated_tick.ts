import { replayTick, type TickRecord } from './apply.js';
import { emptyState, stateFromImage, type LedgerHead } from './state.js';
import type { ConsumedNonce, EngineStore, KeptAnswer, TickCommit } from './store/types.js';

/**
 * What a replicated log carries for one tick: everything a follower cannot derive. The
 * record (actions and their time) is replayed through the same engine code; the ledger
 * head is what the writer's replay produced, which the follower's must equal; the spent
 * nonces and kept answers are stored as they are, so that a retry of an answered act is
 * answered again after a failover rather than applied twice. Tree records, entries and
 * snapshots are derived, so they never travel.
 */
export interface ReplicatedTick {
  record: TickRecord;
  ledger_head: LedgerHead;
  consumed_nonces: ConsumedNonce[];
  kept_answers: KeptAnswer[];
}

/** The replicated form of a tick commit that logged a tick; undefined for one that only spent nonces. */
export function replicatedTickOf(commit: TickCommit, head_before: LedgerHead): ReplicatedTick | undefined {
  if (!commit.record) return undefined;
  const tail = commit.entries.at(-1);
  return {
    record: commit.record,
    ledger_head: tail ? { seq: tail.seq, hash: tail.hash } : { ...head_before },
    consumed_nonces: commit.consumed_nonces,
    kept_answers: commit.kept_answers ?? [],
  };
}

/** A followed tick whose replay does not produce the head its writer published: this store is not that log's. */
export class DivergedLogError extends Error {
  constructor(
    readonly tick: number,
    message: string,
  ) {
    super(`tick ${tick}: ${message}`);
    this.name = 'DivergedLogError';
  }
}

/**
 * The store's own ticks after `after_tick` in their replicated form, their heads found by
 * replaying the log from the newest snapshot at or before that tick: how a society that
 * ran on one machine hands its history to a replicated log that starts empty (or
 * shorter). Spent nonces and kept answers are not carried: they matter only for
 * minutes, and a new writer's nonces are its own.
 */
export function* storedTicks(store: EngineStore, after_tick: number): Iterable<ReplicatedTick> {
  const base = store
    .snapshotTicks()
    .filter((tick) => tick <= after_tick)
    .at(-1);
  const image = base === undefined ? undefined : store.snapshotAt(base);
  const state = image ? stateFromImage(image) : emptyState();
  for (const record of store.ticksAfter(state.tick)) {
    replayTick(state, record);
    if (record.tick > after_tick)
      yield { record, ledger_head: { ...state.ledger_head }, consumed_nonces: [], kept_answers: [] };
  }
}
