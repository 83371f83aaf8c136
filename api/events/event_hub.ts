import type { ServerResponse } from 'node:http';
import type { LedgerReader } from '../../engine/index.js';
import type { EntryFilter, FilterableEntry } from './event_filter.js';
import type { EventStreamLimits } from './event_limits.js';

export interface EventHubOptions extends EventStreamLimits {
  ledger: LedgerReader;
  /** The host clock, for stall detection only. */
  clock: () => number;
}

/** Entries read from the store per step of a catch-up: a step never holds the event loop for long. */
const catch_up_page_entries = 256;

interface Subscriber {
  res: ServerResponse;
  filter: EntryFilter;
  /** Filters that pass everything need no parse of the entry. */
  filtered: boolean;
  /** The next seq this subscriber is due: everything before it was sent or filtered out. */
  next_seq: number;
  /** Caught up: fed by publish, not by reading the store. */
  live: boolean;
  /** When its unread bytes were last seen to be more than zero without draining. */
  stalled_since_ms: number | undefined;
  unread_bytes_seen: number;
}

interface Published {
  seq: number;
  json: string;
  entry: FilterableEntry | undefined;
}

/**
 * The ledger as Server-Sent Events. Entries reach subscribers only through `publish`,
 * which the engine calls once a tick is durable, or through a catch-up read from the
 * store; either way never before the commit. A subscriber that resumes (`from`, or a
 * reconnect's Last-Event-ID) is caught up from the store, one page at a time and only as
 * fast as it reads, then fed live. Memory per subscriber is bounded: one that leaves more
 * than buffer_bytes_max unread, or stops reading, is cut off with a final `dropped` event
 * naming the seq to resume from.
 */
export class EventHub {
  private readonly subscribers = new Set<Subscriber>();
  private published_seq: number;
  private readonly heartbeat: NodeJS.Timeout;

  constructor(private readonly options: EventHubOptions) {
    this.published_seq = options.ledger.head().seq;
    this.heartbeat = setInterval(() => this.beat(), options.heartbeat_seconds * 1000);
    this.heartbeat.unref();
  }

  get limits(): Readonly<EventStreamLimits> {
    return this.options;
  }

  /** Streams open now. */
  get size(): number {
    return this.subscribers.size;
  }

  get full(): boolean {
    return this.subscribers.size >= this.options.subscribers_max;
  }

  /** The newest durable seq the hub has published. */
  get head_seq(): number {
    return this.published_seq;
  }

  /**
   * Starts a stream on a response whose headers are written. `from_seq` is the first seq
   * wanted; undefined means only what commits from now on.
   */
  subscribe(res: ServerResponse, filter: EntryFilter, filtered: boolean, from_seq: number | undefined): void {
    const subscriber: Subscriber = {
      res,
      filter,
      filtered,
      next_seq: Math.max(1, from_seq ?? this.published_seq + 1),
      live: false,
      stalled_since_ms: undefined,
      unread_bytes_seen: 0,
    };
    this.subscribers.add(subscriber);
    res.on('close', () => this.subscribers.delete(subscriber));
    // The browser's EventSource waits this long before reconnecting, with Last-Event-ID.
    res.write('retry: 2000\n\n');
    void this.catchUp(subscriber);
  }

  /** A durable tick's entries, in seq order. */
  publish(entries: readonly { seq: number; json: string }[]): void {
    if (entries.length === 0) return;
    const items: Published[] = entries.map(({ seq, json }) => ({ seq, json, entry: undefined }));
    this.published_seq = items.at(-1)!.seq;
    for (const subscriber of this.subscribers) {
      if (!subscriber.live) continue;
      if (subscriber.next_seq < items[0]!.seq) {
        // A tick it has not seen (never expected: ticks are published in order): read it from the store.
        subscriber.live = false;
        void this.catchUp(subscriber);
        continue;
      }
      for (const item of items) {
        if (item.seq < subscriber.next_seq) continue;
        if (!this.send(subscriber, item)) break;
      }
    }
  }

  /** Ends every stream (the server is closing). */
  close(): void {
    clearInterval(this.heartbeat);
    for (const subscriber of this.subscribers) subscriber.res.end();
    this.subscribers.clear();
  }

  /** Sends one entry if it passes the filter; false when the subscriber was cut off. */
  private send(subscriber: Subscriber, item: Published): boolean {
    subscriber.next_seq = item.seq + 1;
    if (subscriber.filtered) {
      item.entry ??= JSON.parse(item.json) as FilterableEntry;
      if (!subscriber.filter(item.entry)) return true;
    }
    subscriber.res.write(`id: ${item.seq}\nevent: entry\ndata: ${item.json}\n\n`);
    if (subscriber.res.writableLength <= this.options.buffer_bytes_max) return true;
    this.cutOff(subscriber, 'slow_reader');
    return false;
  }

  /** Reads from the store until the subscriber reaches the published head, then goes live. */
  private async catchUp(subscriber: Subscriber): Promise<void> {
    const { ledger, buffer_bytes_max } = this.options;
    while (this.subscribers.has(subscriber)) {
      // Checked and set in one turn: a publish after this sees the subscriber live and due.
      if (subscriber.next_seq > this.published_seq) {
        subscriber.live = true;
        return;
      }
      const count = Math.min(catch_up_page_entries, this.published_seq - subscriber.next_seq + 1);
      let seq = subscriber.next_seq;
      for (const json of ledger.page(seq, count)) {
        if (!this.send(subscriber, { seq, json, entry: undefined })) return;
        seq += 1;
      }
      // As fast as it reads: past half the bound, wait for the socket to drain (or the stall check to cut it off).
      if (subscriber.res.writableLength > buffer_bytes_max / 2) await drained(subscriber.res);
      else await new Promise((resolve) => setImmediate(resolve));
    }
  }

  private beat(): void {
    const now_ms = this.options.clock();
    for (const subscriber of this.subscribers) {
      const unread = subscriber.res.writableLength;
      if (unread > 0 && unread >= subscriber.unread_bytes_seen) {
        subscriber.stalled_since_ms ??= now_ms;
        if (now_ms - subscriber.stalled_since_ms >= this.options.stall_seconds * 1000) {
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
  private cutOff(subscriber: Subscriber, reason: 'slow_reader' | 'stalled'): void {
    this.subscribers.delete(subscriber);
    const resume = JSON.stringify({ reason, resume_from: subscriber.next_seq });
    subscriber.res.end(`event: dropped\ndata: ${resume}\n\n`);
    setTimeout(() => subscriber.res.destroy(), this.options.stall_seconds * 1000).unref();
  }
}

function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}
