import type { ServerResponse } from 'node:http';
import type { EventStreamLimits } from './event_limits.js';
import { SseConnection } from './sse_connection.js';

/** One open stream: at least its connection. */
export interface SseSubscriber {
  connection: SseConnection;
}

export type CutOffReason = 'slow_reader' | 'stalled';

/** The stall check runs this many times per stall_seconds, so a stall ends within 1.25 stall_seconds. */
const stall_checks_per_period = 4;

/**
 * The open Server-Sent Event streams of one kind, with what every kind needs: a bound on
 * what each holds unsent (SseConnection), a heartbeat, and the cut-offs.
 *
 * - A slow reader, whose next event would pass buffer_bytes_max: its queued events are
 *   discarded and its last event, `dropped`, names where to resume (the first event it was
 *   not sent); it goes out behind at most socket_write_bytes_max, and the response ends.
 * - A stalled one, whose socket took none of its unsent bytes for stall_seconds: it is
 *   `dropped` too, for the record, and its connection reset at once, freeing the kernel's
 *   buffers with it; its client resumes from the last event it received (Last-Event-ID).
 *
 * A stream cut off keeps its connection (and its place under the caps, StreamGate) until
 * the client closes it, having read to the end, or it is reset stall_seconds after its last
 * byte went out.
 */
export class SseSubscribers<S extends SseSubscriber> {
  private readonly open = new Set<S>();
  /** Cut off or ended, waiting for their connections to close. */
  private readonly ending = new Set<SseConnection>();
  private readonly timers: NodeJS.Timeout[];

  constructor(
    private readonly limits: Readonly<EventStreamLimits>,
    private readonly clock: () => number,
    /** The `dropped` event's data: where this kind of stream resumes. */
    private readonly resumeOf: (subscriber: S) => Record<string, unknown>,
  ) {
    this.timers = [
      setInterval(() => this.heartbeat(), limits.heartbeat_seconds * 1000),
      setInterval(() => this.checkStalls(), (limits.stall_seconds * 1000) / stall_checks_per_period),
    ];
    for (const timer of this.timers) timer.unref();
  }

  get size(): number {
    return this.open.size;
  }

  has(subscriber: S): boolean {
    return this.open.has(subscriber);
  }

  [Symbol.iterator](): IterableIterator<S> {
    return this.open.values();
  }

  /** The bounded connection of a response whose headers are written. */
  connect(res: ServerResponse): SseConnection {
    return new SseConnection(res, this.limits, this.clock);
  }

  /** Starts a stream. */
  add(subscriber: S): void {
    const { connection } = subscriber;
    this.open.add(subscriber);
    connection.onClose(() => {
      this.open.delete(subscriber);
      this.ending.delete(connection);
    });
    // The browser's EventSource waits this long before reconnecting (with Last-Event-ID).
    connection.write('retry: 2000\n\n');
  }

  /** Hands what it has queued to its socket, as far as the socket takes it. */
  flush(subscriber: S): void {
    subscriber.connection.flush();
  }

  /** Queues one event and flushes; false when it did not fit, and the stream was cut off as a slow reader. */
  write(subscriber: S, event: string): boolean {
    if (!this.open.has(subscriber)) return false;
    if (!subscriber.connection.offer(event)) {
      this.cutOff(subscriber, 'slow_reader');
      return false;
    }
    subscriber.connection.flush();
    return true;
  }

  /** Ends every stream (the server is closing; it closes the connections next). */
  close(): void {
    for (const timer of this.timers) clearInterval(timer);
    for (const subscriber of this.open) subscriber.connection.end('');
    this.open.clear();
  }

  /** The heartbeat and the stall check at once; tests call it to move time on. */
  beat(): void {
    this.heartbeat();
    this.checkStalls();
  }

  /** A comment line on every idle stream; one with bytes still going out needs none. */
  private heartbeat(): void {
    for (const { connection } of this.open) if (connection.unsent_bytes === 0) connection.write(': keep-alive\n\n');
  }

  /** Cuts off streams whose unsent bytes have not moved for stall_seconds, and resets cut-off ones that linger. */
  private checkStalls(): void {
    const stalled_before_ms = this.clock() - this.limits.stall_seconds * 1000;
    for (const subscriber of this.open) {
      const { connection } = subscriber;
      if (connection.unsent_bytes > 0 && connection.last_progress_ms <= stalled_before_ms)
        this.cutOff(subscriber, 'stalled');
    }
    for (const connection of this.ending) if (connection.last_progress_ms <= stalled_before_ms) connection.reset();
  }

  /** Its last event says where to resume (before the queue it names is discarded); then the stream ends. */
  cutOff(subscriber: S, reason: CutOffReason): void {
    const { connection } = subscriber;
    if (!this.open.delete(subscriber)) return;
    const resume = JSON.stringify({ reason, ...this.resumeOf(subscriber) });
    connection.end(`event: dropped\ndata: ${resume}\n\n`);
    if (reason === 'stalled') connection.reset();
    else if (!connection.closed) this.ending.add(connection);
  }
}
