import type { ServerResponse } from 'node:http';
import type { EventStreamLimits } from './event_limits.js';

/** One open stream: its response, and what the stall check remembers of it. */
export interface SseSubscriber {
  res: ServerResponse;
  /** When its unread bytes were first seen not to drain. */
  stalled_since_ms: number | undefined;
  unread_bytes_seen: number;
}

/**
 * The open Server-Sent Event streams of one kind, with what every kind needs: a bound on
 * unread bytes per stream, a heartbeat, and cutting off a stream that stopped reading with
 * a last `dropped` event saying how to resume. Memory per stream never exceeds
 * buffer_bytes_max plus one event and that last one.
 */
export class SseSubscribers<S extends SseSubscriber> {
  private readonly open = new Set<S>();
  private readonly heartbeat: NodeJS.Timeout;

  constructor(
    private readonly limits: Readonly<EventStreamLimits>,
    private readonly clock: () => number,
    /** The `dropped` event's data: where this kind of stream resumes. */
    private readonly resumeOf: (subscriber: S) => Record<string, unknown>,
  ) {
    this.heartbeat = setInterval(() => this.beat(), limits.heartbeat_seconds * 1000);
    this.heartbeat.unref();
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

  /** Starts a stream on a response whose headers are written. */
  add(subscriber: S): void {
    this.open.add(subscriber);
    subscriber.res.on('close', () => this.open.delete(subscriber));
    // The browser's EventSource waits this long before reconnecting (with Last-Event-ID).
    subscriber.res.write('retry: 2000\n\n');
  }

  /** Writes one event; false when that left the stream over its bound, and it was cut off. */
  write(subscriber: S, event: string): boolean {
    subscriber.res.write(event);
    if (subscriber.res.writableLength <= this.limits.buffer_bytes_max) return true;
    this.cutOff(subscriber, 'slow_reader');
    return false;
  }

  /** Ends every stream (the server is closing). */
  close(): void {
    clearInterval(this.heartbeat);
    for (const subscriber of this.open) subscriber.res.end();
    this.open.clear();
  }

  /** A comment line on every stream, and the stall check: unread bytes that never go down. */
  beat(): void {
    const now_ms = this.clock();
    for (const subscriber of this.open) {
      const unread = subscriber.res.writableLength;
      if (unread > 0 && unread >= subscriber.unread_bytes_seen) {
        subscriber.stalled_since_ms ??= now_ms;
        if (now_ms - subscriber.stalled_since_ms >= this.limits.stall_seconds * 1000) {
          this.cutOff(subscriber, 'stalled');
          continue;
        }
      } else {
        subscriber.stalled_since_ms = undefined;
      }
      subscriber.unread_bytes_seen = unread;
      subscriber.res.write(': keep-alive\n\n');
    }
  }

  /** The last event says where to resume; then the stream ends, and is destroyed if it never drains. */
  private cutOff(subscriber: S, reason: 'slow_reader' | 'stalled'): void {
    this.open.delete(subscriber);
    const resume = JSON.stringify({ reason, ...this.resumeOf(subscriber) });
    subscriber.res.end(`event: dropped\ndata: ${resume}\n\n`);
    setTimeout(() => subscriber.res.destroy(), this.limits.stall_seconds * 1000).unref();
  }
}
