import type { ServerResponse } from 'node:http';
import type { LedgerReader } from '../../engine/index.js';
import type { EntryFilter, FilterableEntry } from './event_filter.js';
import type { EventStreamLimits } from './event_limits.js';
import { historyRewritten, rewrittenEvent } from './history_rewrite.js';
import { type SseSubscriber, SseSubscribers } from './sse_subscribers.js';

export interface EventHubOptions extends EventStreamLimits {
  ledger: LedgerReader;
  /** The host clock, for stall detection only. */
  clock: () => number;
}

/** Entries read from the store per step of a catch-up at most: a step never holds the event loop for long. */
const catch_up_page_entries = 256;

interface Subscriber extends SseSubscriber {
  filter: EntryFilter;
  /** The one actor it follows, if its filter names one: it is then fed from an index, not offered every entry. */
  actor: string | undefined;
  /** Filters that pass everything need no parse of the entry. */
  filtered: boolean;
  /** The next seq this subscriber is due: everything before it was queued or filtered out. */
  next_seq: number;
  /** Caught up: fed by publish, not by reading the store. */
  live: boolean;
}

/** The live subscribers offered entries of one tick, each with whether it had nothing unsent when the tick began. */
type TickOffers = Map<Subscriber, boolean>;

interface Published {
  seq: number;
  json: string;
  entry: FilterableEntry | undefined;
}

/**
 * The ledger as Server-Sent Events. Entries reach subscribers only through `publish`,
 * which the engine calls once a tick is durable, or through a catch-up read from the
 * store; either way never before the commit. A subscriber that resumes (`from`, or a
 * reconnect's Last-Event-ID) is caught up from the store a page at a time, a page only
 * when its connection has room (SseConnection), so a backlog is never held in memory and
 * goes only as fast as the client reads; then it is fed live. Memory per subscriber is
 * bounded by buffer_bytes_max: a live one too slow for the ledger is cut off with a
 * `dropped` event naming the first seq it was not sent (SseSubscribers).
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
  /** The mean size of the entries last read from the store: how many fit the room a catch-up has. */
  private entry_bytes_estimate = 512;

  constructor(private readonly options: EventHubOptions) {
    this.published_seq = options.ledger.head().seq;
    this.subscribers = new SseSubscribers(options, options.clock, (subscriber) => ({
      // What was queued and not sent is the client's to ask for again; what went to the socket precedes `dropped`.
      resume_from: subscriber.connection.first_queued_seq ?? subscriber.next_seq,
    }));
  }

  /** Streams open now. */
  get size(): number {
    return this.subscribers.size;
  }

  /**
   * Starts a stream on a response whose headers are written. `from_seq` is the first seq
   * wanted; undefined means only what commits from now on. `resumed_after` is a
   * reconnect's Last-Event-ID: one past the head was seen in a history since rewritten,
   * so the stream says so first and resumes where this history differs from it.
   */
  subscribe(
    res: ServerResponse,
    filter: EntryFilter,
    filtered: boolean,
    from_seq: number | undefined,
    actor?: string,
    resumed_after?: number,
  ): void {
    const connection = this.subscribers.connect(res);
    const rewritten = resumed_after === undefined ? undefined : historyRewritten(resumed_after, this.published_seq);
    const subscriber: Subscriber = {
      connection,
      filter,
      actor,
      filtered,
      next_seq: Math.max(1, rewritten?.rewritten_from ?? from_seq ?? this.published_seq + 1),
      live: false,
    };
    this.subscribers.add(subscriber);
    // Sent now, before any entry: a stream with nothing new to send would otherwise hold it until the next tick.
    if (rewritten) this.subscribers.write(subscriber, rewrittenEvent(rewritten));
    subscriber.connection.onClose(() => this.leaveLive(subscriber));
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
    // Queued entry by entry, flushed once per subscriber per tick: a socket write costs more than the entry's text.
    const offered: TickOffers = new Map();
    for (const { seq, json } of entries) {
      const item: Published = { seq, json, entry: undefined };
      for (const subscriber of this.live_general) this.offerLive(subscriber, item, offered);
      if (!indexed) continue;
      item.entry ??= JSON.parse(json) as FilterableEntry;
      const followers = this.live_by_actor.get(item.entry.actor);
      if (followers) for (const subscriber of followers) this.offerLive(subscriber, item, offered);
    }
    for (const subscriber of offered.keys()) this.subscribers.flush(subscriber);
  }

  /** Ends every stream (the server is closing). */
  close(): void {
    this.subscribers.close();
  }

  /** The heartbeat and stall check, run on timers; tests call it to move time on. */
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
   * Offers a live subscriber one entry of a tick. One that had nothing unsent when the tick
   * began is keeping up, and a tick larger than its room does not make it slow: it reads
   * the rest from the store, as a catch-up does. One still sending earlier entries, with
   * no room for this one, is a slow reader and is cut off.
   */
  private offerLive(subscriber: Subscriber, item: Published, offered: TickOffers): void {
    if (!this.subscribers.has(subscriber)) return;
    if (!offered.has(subscriber)) offered.set(subscriber, subscriber.connection.unsent_bytes === 0);
    if (this.send(subscriber, item)) return;
    if (offered.get(subscriber)) {
      this.leaveLive(subscriber);
      void this.catchUp(subscriber);
    } else {
      this.subscribers.cutOff(subscriber, 'slow_reader');
    }
  }

  /**
   * Queues one entry if it passes the filter; false when it does not fit (then next_seq
   * still names it: it is where the subscriber resumes). An entry a subscriber is not
   * offered (the index passed it by) leaves its next_seq behind, which is still a safe
   * place to resume: the entries between match none of its filters.
   */
  private send(subscriber: Subscriber, item: Published): boolean {
    if (item.seq < subscriber.next_seq) return true;
    if (subscriber.filtered) {
      item.entry ??= JSON.parse(item.json) as FilterableEntry;
      if (!subscriber.filter(item.entry)) {
        subscriber.next_seq = item.seq + 1;
        return true;
      }
    }
    const event = `id: ${item.seq}\nevent: entry\ndata: ${item.json}\n\n`;
    if (!subscriber.connection.offer(event, item.seq)) return false;
    subscriber.next_seq = item.seq + 1;
    return true;
  }

  /**
   * Reads from the store until the subscriber reaches the published head, then goes live.
   * Each step reads about as many entries as its connection has room for and queues them
   * while the room lasts (what is left is read again later); with no room it waits for the
   * socket to take what it has, or for the stall check to cut it off.
   */
  private async catchUp(subscriber: Subscriber): Promise<void> {
    const { connection } = subscriber;
    while (this.subscribers.has(subscriber)) {
      // Checked and set in one turn: a publish after this sees the subscriber live and due.
      if (subscriber.next_seq > this.published_seq) {
        this.goLive(subscriber);
        return;
      }
      if (connection.room_bytes <= 0) {
        await connection.room();
        continue;
      }
      const fitting = Math.ceil(connection.room_bytes / this.entry_bytes_estimate);
      const count = Math.min(catch_up_page_entries, fitting, this.published_seq - subscriber.next_seq + 1);
      const page = this.options.ledger.page(subscriber.next_seq, count);
      let seq = subscriber.next_seq;
      for (const json of page) {
        if (connection.room_bytes <= 0) break;
        if (!this.send(subscriber, { seq, json, entry: undefined })) {
          // Only an entry larger than buffer_bytes_max less socket_write_bytes_max can fail with room left.
          this.subscribers.cutOff(subscriber, 'slow_reader');
          return;
        }
        seq += 1;
      }
      this.entry_bytes_estimate = Math.max(64, page.reduce((sum, json) => sum + json.length, 0) / (page.length || 1));
      this.subscribers.flush(subscriber);
      // One step per turn of the event loop: other streams and requests go between.
      await new Promise((resolve) => setImmediate(resolve));
    }
  }
}
