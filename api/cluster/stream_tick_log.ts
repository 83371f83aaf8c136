import type { ReplicatedTick } from '../../engine/index.js';
import { backoffMs, type ClusterClock } from './cluster_clock.js';
import { WrongLastSequenceError, type LogStream, type StreamMessage } from './log_stream.js';
import {
  decodeTick,
  encodeTick,
  LogMovedError,
  StaleWriterError,
  type LogFollower,
  type TermWriter,
  type TickLog,
} from './tick_log.js';

/** What a term start says: who writes from here on, and the last tick before it. */
interface TermStart {
  term: string;
  after_tick: number;
}

export interface StreamTickLogOptions {
  clock: ClusterClock;
  /** Told of each call sent again after an unknown outcome, for the node's log. */
  on_retry?: (what: string, error: unknown, attempt: number) => void;
}

/**
 * The tick log's rules over a LogStream. Fencing by term: a writer's first message is
 * its term start, appended with "the stream ends at the last message I have seen", and
 * every tick after it says "the stream ends at my previous message". A writer of an
 * earlier term, however late its append arrives, expects a position the term start
 * has taken, so the stream itself refuses it; the expected sequence alone (tick n at
 * "ends at n - 1") did not, when the new writer had not yet written. No two terms ever
 * append at the same position.
 *
 * Term starts share the sequence with ticks, so tick n is at stream sequence n plus
 * the number of term starts before it: never below n. Reads look there first and step
 * forward over the term starts, which are one per change of writer.
 */
export class StreamTickLog implements TickLog {
  /** A tick and its sequence, last seen: its offset is a floor for any later tick's. */
  private hint = { tick: 0, seq: 0 };

  constructor(
    private readonly stream: LogStream,
    private readonly options: StreamTickLogOptions,
  ) {}

  async beginTerm(term: string, after_tick: number): Promise<TermWriter> {
    const last_seq = await this.retried('read the log’s end', () => this.stream.lastSeq());
    const tail = last_seq === 0 ? undefined : await this.retried('read the log’s end', () => this.stream.get(last_seq));
    if (last_seq > 0 && !tail) throw new Error(`the log says it ends at ${last_seq} but has no message there`);
    const log_tick = tail ? tickNumberOf(tail) : 0;
    if (log_tick !== after_tick) throw new LogMovedError(after_tick, log_tick);
    try {
      return new StreamTermWriter(this, term, await this.fence(term, last_seq, after_tick), after_tick);
    } catch (error) {
      if (error instanceof WrongLastSequenceError) throw new LogMovedError(after_tick, Number.NaN);
      throw error;
    }
  }

  /**
   * Appends the term's start right after `last_seq`, the log's end as this writer read it:
   * the sequence every earlier term's next append expects is taken. Its sequence is
   * where the term's first tick expects the log to end. (The simulator overrides this to
   * show what happens without it: test/simulation/unfenced_tick_log.ts.)
   */
  protected async fence(term: string, last_seq: number, after_tick: number): Promise<number> {
    const start: TermStart = { term, after_tick };
    return this.published('term', JSON.stringify(start), `term:${term}`, last_seq);
  }

  async lastTick(): Promise<number> {
    const last_seq = await this.stream.lastSeq();
    if (last_seq === 0) return 0;
    const tail = await this.stream.get(last_seq);
    if (!tail) throw new Error(`the log says it ends at ${last_seq} but has no message there`);
    return tickNumberOf(tail);
  }

  async read(tick: number): Promise<ReplicatedTick | undefined> {
    let seq = tick + (this.hint.tick <= tick ? this.hint.seq - this.hint.tick : 0);
    for (;;) {
      const message = await this.stream.get(seq);
      if (!message) return undefined;
      if (message.kind === 'term') {
        seq++;
        continue;
      }
      const found = decodeTick(message.data);
      const number = found.record.tick;
      if (number > tick) throw new Error(`the log's message ${seq} holds tick ${number}, past tick ${tick}`);
      this.hint = { tick: number, seq };
      if (number === tick) return found;
      seq += tick - number;
    }
  }

  follow(
    after: number,
    apply: (tick: ReplicatedTick) => Promise<void>,
    on_error: (error: unknown) => void,
  ): LogFollower {
    let applied = after;
    // A floor for the first tick's sequence: what comes before it (older ticks, term starts) is passed over.
    const from_seq = after + 1 + (this.hint.tick <= after ? this.hint.seq - this.hint.tick : 0);
    return this.stream.consume(
      from_seq,
      async (message) => {
        if (message.kind === 'term') return;
        const tick = decodeTick(message.data);
        const number = tick.record.tick;
        if (number <= applied) return;
        if (number !== applied + 1)
          throw new Error(`the log's message ${message.seq} holds tick ${number} where tick ${applied + 1} was next`);
        await apply(tick);
        applied = number;
        this.hint = { tick: number, seq: message.seq };
      },
      on_error,
    );
  }

  async close(): Promise<void> {}

  /** Whether the stream holds a term start after `seq`. */
  async termBegunAfter(seq: number): Promise<boolean> {
    const last_seq = await this.stream.lastSeq();
    for (let next = seq + 1; next <= last_seq; next++) if ((await this.stream.get(next))?.kind !== 'tick') return true;
    return false;
  }

  /**
   * Publishes, sending the same message again while the outcome is unknown. A resend
   * of a message that was stored is answered with its sequence (its id is a duplicate);
   * one that was not is stored now, or refused if the stream moved.
   */
  async published(
    kind: StreamMessage['kind'],
    data: string,
    msg_id: string,
    expect_last_seq: number,
    abandoned: () => boolean = () => false,
  ): Promise<number> {
    return this.retried(
      `append ${msg_id}`,
      () => this.stream.publish(kind, data, msg_id, expect_last_seq),
      (error) => error instanceof WrongLastSequenceError || abandoned(),
    );
  }

  /** Calls until it answers; errors that are answers (`final`) are thrown at once. */
  private async retried<T>(
    what: string,
    call: () => Promise<T>,
    final: (error: unknown) => boolean = () => false,
  ): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (final(error)) throw error;
        this.options.on_retry?.(what, error, attempt);
        await this.options.clock.sleep(backoffMs(attempt));
      }
    }
  }
}

/** One term's appends: each one expects the stream to end at this writer's previous message. */
class StreamTermWriter implements TermWriter {
  private abandoned = false;

  constructor(
    private readonly log: StreamTickLog,
    readonly term: string,
    private last_seq: number,
    private last_tick: number,
  ) {}

  async append(tick: ReplicatedTick): Promise<void> {
    const number = tick.record.tick;
    if (this.abandoned) throw new StaleWriterError(number, 'this writer was abandoned');
    if (number !== this.last_tick + 1)
      throw new Error(`tick ${number} appended after tick ${this.last_tick}: a writer appends its ticks in order`);
    try {
      this.last_seq = await this.log.published(
        'tick',
        encodeTick(tick),
        `${this.term}:${number}`,
        this.last_seq,
        () => this.abandoned,
      );
    } catch (error) {
      if (error instanceof WrongLastSequenceError || this.abandoned) throw new StaleWriterError(number);
      throw error;
    }
    this.last_tick = number;
  }

  abandon(): void {
    this.abandoned = true;
  }

  async stillCurrent(): Promise<boolean> {
    return !this.abandoned && !(await this.log.termBegunAfter(this.last_seq));
  }
}

/** The tick a message ends the log at: its own, or for a term start the one before it. */
function tickNumberOf(message: StreamMessage): number {
  if (message.kind === 'tick') return decodeTick(message.data).record.tick;
  const start = JSON.parse(message.data) as TermStart;
  if (!Number.isSafeInteger(start?.after_tick)) throw new Error(`a term start without its tick: ${message.data}`);
  return start.after_tick;
}
