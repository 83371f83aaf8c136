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
  /** The one actor it follows, if its filter names one: it is then fed from an index, not offered every entry. */
  actor: string | undefined;
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
  /** Live subscribers offered every entry (no filter, or filters by type or chunk). */
  private readonly live_general = new Set<Subscriber>();
  /**
   * Live subscribers following one actor, by actor: an agent following its own events is
   * offered only those, so a thousand such streams cost a lookup per entry, not a thousand.
   */
  private readonly live_by_actor = new Map<string, Set<Subscriber>>();

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

  /**
   * Starts a stream on a response whose headers are written. `from_seq` is the first seq
   * wanted; undefined means only what commits from now on.
   */
  subscribe(
    res: ServerResponse,
    filter: EntryFilter,
    filtered: boolean,
    from_seq: number | undefined,
    actor?: string,
  ): void {
    const subscriber: Subscriber = {
      res,
      filter,
      actor,
      filtered,
      next_seq: Math.max(1, from_seq ?? this.published_seq + 1),
      live: false,
      stalled_since_ms: undefined,
      unread_bytes_seen: 0,
    };
    this.subscribers.add(subscriber);
    res.on('close', () => this.leaveLive(subscriber));
    void this.catchUp(subscriber);
  }

  /** A durable tick's entries, in seq order. */
  publish(entries: readonly { seq: number; json: string }[]): void {
    if (entries.length === 0) return;
    const gap = entries[0]!.seq !== this.published_seq + 1;
    const from_seq = this.published_seq + 1;
    this.published_seq = entries.at(-1)!.seq;
    if (gap) {
      // Never expected (ticks are published in order): every live stream reads the missed entries from the store.
      for (const subscriber of [...this.live_general, ...[...this.live_by_actor.values()].flatMap((set) => [...set])]) {
        this.leaveLive(subscriber);
        subscriber.next_seq = Math.min(subscriber.next_seq, from_seq);
        void this.catchUp(subscriber);
      }
      return;
    }
    const indexed = this.live_by_actor.size > 0;
    // One write per subscriber per tick: a socket write costs more than the entry's text.
    const batch = new Map<Subscriber, string>();
    for (const { seq, json } of entries) {
      const item: Published = { seq, json, entry: undefined };
      for (const subscriber of this.live_general) this.send(subscriber, item, batch);
      if (!indexed) continue;
      item.entry ??= JSON.parse(json) as FilterableEntry;
      const followers = this.live_by_actor.get(item.entry.actor);
      if (followers) for (const subscriber of followers) this.send(subscriber, item, batch);
    }
    for (const [subscriber, text] of batch) this.subscribers.write(subscriber, text);
  }

  /** Ends every stream (the server is closing). */
  close(): void {
    this.subscribers.close();
  }

  /** The heartbeat and stall check, run on a timer; tests call it to move time on. */
  beat(): void {
    this.subscribers.beat();
  }

  private goLive(subscriber: Subscriber): void {
    subscriber.live = true;
    if (subscriber.actor === undefined) {
      this.live_general.add(subscriber);
      return;
    }
    const followers = this.live_by_actor.get(subscriber.actor) ?? new Set<Subscriber>();
    followers.add(subscriber);
    this.live_by_actor.set(subscriber.actor, followers);
  }

  private leaveLive(subscriber: Subscriber): void {
    subscriber.live = false;
    this.live_general.delete(subscriber);
    if (subscriber.actor === undefined) return;
    const followers = this.live_by_actor.get(subscriber.actor);
    followers?.delete(subscriber);
    if (followers?.size === 0) this.live_by_actor.delete(subscriber.actor);
  }

  /**
   * Sends one entry if it passes the filter; false when the subscriber was cut off. An
   * entry a subscriber is not offered (the index passed it by) leaves its next_seq behind,
   * which is still a safe place to resume: the entries between match none of its filters.
   */
  private send(subscriber: Subscriber, item: Published, batch: Map<Subscriber, string>): boolean {
    if (!this.subscribers.has(subscriber)) return false;
    if (item.seq < subscriber.next_seq) return true;
    subscriber.next_seq = item.seq + 1;
    if (subscriber.filtered) {
      item.entry ??= JSON.parse(item.json) as FilterableEntry;
      if (!subscriber.filter(item.entry)) return true;
    }
    batch.set(subscriber, `${batch.get(subscriber) ?? ''}id: ${item.seq}\nevent: entry\ndata: ${item.json}\n\n`);
    return true;
  }

  /** Reads from the store until the subscriber reaches the published head, then goes live. */
  private async catchUp(subscriber: Subscriber): Promise<void> {
    const { ledger, buffer_bytes_max } = this.options;
    while (this.subscribers.has(subscriber)) {
      // Checked and set in one turn: a publish after this sees the subscriber live and due.
      if (subscriber.next_seq > this.published_seq) {
        this.goLive(subscriber);
        return;
      }
      const count = Math.min(catch_up_page_entries, this.published_seq - subscriber.next_seq + 1);
      let seq = subscriber.next_seq;
      const batch = new Map<Subscriber, string>();
      for (const json of ledger.page(seq, count)) {
        if (!this.send(subscriber, { seq, json, entry: undefined }, batch)) return;
        seq += 1;
      }
      const text = batch.get(subscriber);
      if (text !== undefined && !this.subscribers.write(subscriber, text)) return;
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
