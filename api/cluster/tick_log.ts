import type { ReplicatedTick } from '../../engine/index.js';

/**
 * The replicated, ordered log of a society's ticks, from genesis on, and the fence that
 * keeps it to one writer at a time. Writers append only through a TermWriter, which
 * beginTerm hands out after it has made its term the only one the log accepts: from
 * then on an append built by any earlier term is refused, whatever tick it carries.
 * Implemented once over a LogStream (stream_tick_log.ts), on JetStream or in process.
 */
export interface TickLog {
  /**
   * Starts a term: the log records the term's start right after tick `after_tick`, and
   * from then on takes appends from this term's writer only. Refused with LogMovedError
   * when the log holds ticks after `after_tick` (a writer of an earlier term appended
   * them before the fence: apply them, then begin again).
   */
  beginTerm(term: string, after_tick: number): Promise<TermWriter>;
  /** The number of the log's last tick (0 for an empty log). */
  lastTick(): Promise<number>;
  /** Tick n, if the log has it. */
  read(tick: number): Promise<ReplicatedTick | undefined>;
  /**
   * Hands every tick after `after` to `apply`, in order, one at a time (the next only
   * once the last one's promise resolved), including ticks appended later, until the
   * returned follower is stopped. A lost connection is retried; an `apply` that throws,
   * or a log whose ticks do not follow one another, stops the follower and is reported
   * through `on_error`.
   */
  follow(
    after: number,
    apply: (tick: ReplicatedTick) => Promise<void>,
    on_error: (error: unknown) => void,
  ): LogFollower;
  close(): Promise<void>;
}

export interface TermWriter {
  readonly term: string;
  /**
   * Appends the next tick (the one after the term's start, then after each append), and
   * resolves once the log has stored it durably. Refused with StaleWriterError, nothing
   * appended, once another term has begun. A call whose outcome is unknown (a timeout,
   * a lost connection, a NATS election) is sent again, the same message, until it is
   * stored or refused, or the writer is abandoned.
   */
  append(tick: ReplicatedTick): Promise<void>;
  /** Stops every append waiting to be sent again: they are refused with StaleWriterError. */
  abandon(): void;
  /** Whether no term has begun since this one: the log holds no term start after this writer's messages. */
  stillCurrent(): Promise<boolean>;
}

export interface LogFollower {
  /** Stops after the tick being applied, if any; resolves once no apply is running. */
  stop(): Promise<void>;
}

/** This node may no longer write: another node writes now. The host stops; started again, the node follows. */
export class FencedError extends Error {
  override name = 'FencedError';
}

/** The log refused an append: another term has begun since this writer's. This writer must stop writing. */
export class StaleWriterError extends FencedError {
  override name = 'StaleWriterError';

  constructor(tick: number, why = 'another term has begun since this writer’s') {
    super(`the log refused tick ${tick}: ${why}; this writer is fenced`);
  }
}

/** beginTerm found ticks after the one its caller had: apply them and begin again. */
export class LogMovedError extends Error {
  override name = 'LogMovedError';

  constructor(
    readonly expected_tick: number,
    readonly log_tick: number,
  ) {
    super(`the log ends at tick ${log_tick}, not ${expected_tick}`);
  }
}

/** Ticks as the log carries them: JSON text, the same on every medium. */
export function encodeTick(tick: ReplicatedTick): string {
  return JSON.stringify(tick);
}

export function decodeTick(text: string): ReplicatedTick {
  const tick = JSON.parse(text) as ReplicatedTick;
  if (!Number.isSafeInteger(tick?.record?.tick) || tick.record.tick < 1)
    throw new Error(`a tick log message without a tick number: ${text.slice(0, 80)}`);
  return tick;
}
