import type { ReplicatedTick } from '../../engine/index.js';

/**
 * The replicated, ordered log of a society's ticks: tick n is entry n, from genesis on.
 * The writer appends; followers read it in order. Implemented over NATS JetStream
 * (nats_tick_log.ts) and in process (MemoryTickLog, for the unit tests).
 */
export interface TickLog {
  /**
   * Appends tick n, only if the log ends at tick n - 1; resolves once the log has stored
   * it durably (a quorum, for JetStream). A log that has moved on (another writer
   * appended) refuses with StaleWriterError, and nothing is appended. `term` names the
   * writer's lease: the same writer sending the same tick again (a lost acknowledgement)
   * is told it is stored; any other writer is refused.
   */
  append(tick: ReplicatedTick, term: string): Promise<void>;
  /** The number of the log's last tick (0 for an empty log). */
  lastTick(): Promise<number>;
  /** Tick n, if the log has it. */
  read(tick: number): Promise<ReplicatedTick | undefined>;
  /**
   * Hands every tick after `after` to `apply`, in order, one at a time (the next only
   * once the last one's promise resolved), including ticks appended later, until the
   * returned follower is stopped. An `apply` that throws stops the follower and is
   * reported through `on_error`.
   */
  follow(
    after: number,
    apply: (tick: ReplicatedTick) => Promise<void>,
    on_error: (error: unknown) => void,
  ): LogFollower;
  close(): Promise<void>;
}

export interface LogFollower {
  /** Stops after the tick being applied, if any; resolves once no apply is running. */
  stop(): Promise<void>;
}

/** This node may no longer write: another node writes now. The host stops; started again, the node follows. */
export class FencedError extends Error {
  override name = 'FencedError';
}

/** The log has a tick this writer did not expect: another writer appended. This writer must stop writing. */
export class StaleWriterError extends FencedError {
  override name = 'StaleWriterError';

  constructor(tick: number, log_last: number | undefined) {
    const where = log_last === undefined ? 'has moved on' : `ends at tick ${log_last}`;
    super(`the log refused tick ${tick}: it ${where}, so another writer has appended; this one is fenced`);
  }
}

/** Ticks as the log carries them: JSON text, the same on every medium. */
export function encodeTick(tick: ReplicatedTick): string {
  return JSON.stringify(tick);
}

export function decodeTick(text: string, expected_tick: number): ReplicatedTick {
  const tick = JSON.parse(text) as ReplicatedTick;
  if (tick?.record?.tick !== expected_tick)
    throw new Error(`the log's entry ${expected_tick} holds tick ${String(tick?.record?.tick)}`);
  return tick;
}
