import type { ServerResponse } from 'node:http';
import type { LedgerReader } from '../../engine/index.js';
import type { EntryFilter, FilterableEntry } from './event_filter.js';
import type { EventStreamLimits } from './event_limits.js';
import { type SseSubscriber, SseSubscribers } from './sse_subscribers.js';

export interface EventHubOptions extends EventStreamLimits {
  ledger: LedgerReader;
  /** The host clock, for stall detection only. */
  clock: () => number;
}

/** Entries read from the store per step of a catch-up: a step never holds the event loop for long. */
const catch_up_page_entries = 256;

interface Subscriber extends SseSubscriber {
  filter: EntryFilter;
  /** Filters that pass everything need no parse of the entry. */
  filtered: boolean;
  /** The next seq this subscriber is due: everything before it was sent or filtered out. */
  next_seq: number;
  /** Caught up: fed by publish, not by reading the store. */
  live: boolean;
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
  private readonly subscribers: SseSubscribers<Subscriber>;
  private published_seq: number;

  constructor(private readonly options: EventHubOptions) {
    this.published_seq = options.ledger.head().seq;
    this.subscribers = new SseSubscribers(options, options.clock, (subscriber) => ({
      resume_from: subscriber.next_seq,
    }));
  }

  /** Streams open now. */
  get size(): number {
    return this.subscribers.size;
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
    this.subscribers.close();
  }

  /** The heartbeat and stall check, run on a timer; tests call it to move time on. */
  beat(): void {
    this.subscribers.beat();
  }

  /** Sends one entry if it passes the filter; false when the subscriber was cut off. */
  private send(subscriber: Subscriber, item: Published): boolean {
    subscriber.next_seq = item.seq + 1;
    if (subscriber.filtered) {
      item.entry ??= JSON.parse(item.json) as FilterableEntry;
      if (!subscriber.filter(item.entry)) return true;
    }
    return this.subscribers.write(subscriber, `id: ${item.seq}\nevent: entry\ndata: ${item.json}\n\n`);
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
