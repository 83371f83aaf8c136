/**
 * The ordered, append-only stream a replicated society's log lives on: JetStream in
 * production (nats_log_stream.ts), in process for the tests and the simulator
 * (memory_log_stream.ts). The tick log's rules (stream_tick_log.ts) are written once,
 * against this, so the simulator runs the very code that fences writers over NATS.
 *
 * Two kinds of message share one sequence: ticks, and the term starts a new writer
 * appends before it writes (the fence). Sequences start at 1 and have no gaps.
 */
export type StreamMessageKind = 'tick' | 'term';

export interface StreamMessage {
  seq: number;
  kind: StreamMessageKind;
  data: string;
}

export interface LogStream {
  /**
   * Appends, only if the stream's last sequence is `expect_last_seq`, and resolves with
   * the new message's sequence once it is stored durably (a quorum, for JetStream).
   * A stream that ends elsewhere refuses with WrongLastSequenceError and stores
   * nothing. A `msg_id` already stored (within the duplicate window, two minutes) is
   * answered with the sequence it was stored at, before the expectation is checked:
   * how a resend after a lost answer learns that the first one landed. Any other error
   * leaves the outcome unknown.
   */
  publish(kind: StreamMessageKind, data: string, msg_id: string, expect_last_seq: number): Promise<number>;
  /** The last sequence (0 for an empty stream). */
  lastSeq(): Promise<number>;
  /** The message at `seq`, if the stream has it. */
  get(seq: number): Promise<StreamMessage | undefined>;
  /**
   * Hands every message from `from_seq` on to `deliver`, in order, one at a time (the
   * next once the last one's promise resolved), including messages stored later, until
   * stopped. A transport failure (a consumer lost with a NATS node) is retried by the
   * stream from where it was; an error thrown by `deliver` stops it and reaches
   * `on_error`.
   */
  consume(
    from_seq: number,
    deliver: (message: StreamMessage) => Promise<void>,
    on_error: (error: unknown) => void,
  ): StreamConsumer;
}

export interface StreamConsumer {
  /** Stops after the message being delivered, if any; resolves once no deliver is running. */
  stop(): Promise<void>;
}

/** The stream does not end where the publisher expected: someone else appended. Nothing was stored. */
export class WrongLastSequenceError extends Error {
  override name = 'WrongLastSequenceError';

  constructor(readonly expected_last_seq: number) {
    super(`the stream does not end at ${expected_last_seq}`);
  }
}
