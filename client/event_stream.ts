import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { WireEntry } from './ledger_check.js';

/**
 * What a `rewritten` event says (docs/protocol.md, "After a restore"): the entries this follower
 * yielded from `rewritten_from` on belong to a history the service no longer holds (a restore
 * rewound its ledger, and new entries took their seqs).
 */
export interface HistoryRewritten {
  /** The first seq whose entry is not the one yielded before; the entries from here on follow. */
  rewritten_from: number;
  /** The last seq this follower had seen, as it told the service when it resumed. */
  last_event_id: number;
}

/** What to follow: the stream's own filters (GET /api/v1/events), and where to start. */
export interface FollowOptions {
  /** The first seq wanted; absent, only entries committed from now on. */
  from?: number;
  /**
   * The last seq already seen (kept from an earlier run): resumes right after it as a reconnect
   * does, so that a restore since then is told (on_rewritten). Takes the place of `from`.
   */
  after?: number;
  /** Event types, any of. */
  types?: string[];
  /** One agent id (or 'system'). */
  actor?: string;
  /** One chunk: entries naming a tile of it. */
  chunk?: { chunk_x: number; chunk_y: number };
  /** Ends the iteration. */
  signal?: AbortSignal;
  /** Waits between reconnects, doubling from this up to 30 s (default 500 ms). */
  retry_ms?: number;
  /**
   * Called, and awaited, when a resumed stream says the history from `rewritten_from` on was
   * rewritten by a restore: drop what you derived from the entries yielded at or after that seq.
   * The next entries yielded are this history's, from `rewritten_from` on, so seqs go back.
   * Without it, they follow all the same and only the seqs going back tell.
   */
  on_rewritten?: (rewritten: HistoryRewritten) => void | Promise<void>;
}

const retry_ms_max = 30_000;

/**
 * The society's ledger as it grows, one entry at a time, for `for await`. It reconnects
 * by itself after a dropped connection or a `dropped` event, resuming right after the
 * last entry it yielded (sent as Last-Event-ID, so that the service can tell a seq from
 * a history a restore rewound), so a consumer sees every matching entry once, in seq
 * order; after a restore, `options.on_rewritten` is told, and the stream goes on from
 * the first rewritten seq. It uses only fetch and web streams, so it runs in Node, Deno,
 * Bun and browsers alike.
 */
export async function* followLedger(
  base_url: string,
  options: FollowOptions = {},
  fetcher: typeof fetch = fetch,
): AsyncGenerator<WireEntry> {
  // The last seq seen: every entry up to it was yielded or filtered out. Until one is, `from` says where to start.
  let last_seen = options.after;
  let wait_ms = options.retry_ms ?? 500;
  while (!options.signal?.aborted) {
    try {
      const resuming = last_seen !== undefined ? { 'last-event-id': String(last_seen) } : undefined;
      const response = await fetcher(streamUrl(base_url, options, resuming ? undefined : options.from), {
        headers: { accept: 'text/event-stream', ...resuming },
        signal: options.signal,
      });
      if (response.status === 422 || response.status === 404)
        throw new Error(`the event stream refused the request: ${response.status} ${await response.text()}`);
      if (!response.ok || !response.body) throw new RetryableStreamError(`status ${response.status}`);
      const events = response.body
        .pipeThrough(new TextDecoderStream())
        .pipeThrough(new EventSourceParserStream()) as unknown as AsyncIterable<{ event?: string; data: string }>;
      for await (const event of events) {
        if (event.event === 'entry') {
          const entry = JSON.parse(event.data) as WireEntry;
          last_seen = entry.seq;
          wait_ms = options.retry_ms ?? 500;
          yield entry;
        } else if (event.event === 'dropped') {
          last_seen = (JSON.parse(event.data) as { resume_from: number }).resume_from - 1;
        } else if (event.event === 'rewritten') {
          const rewritten = JSON.parse(event.data) as HistoryRewritten;
          // The event has no id: should the stream end before an entry comes, resume at the
          // rewritten seq, which this history holds, not after the seq of the one given up.
          last_seen = rewritten.rewritten_from - 1;
          await options.on_rewritten?.(rewritten);
        }
      }
    } catch (error) {
      if (options.signal?.aborted) return;
      if (!(error instanceof RetryableStreamError) && !isNetworkError(error)) throw error;
    }
    // The server ended the stream (a restart, or a cut-off): come back after a pause.
    await pause(wait_ms, options.signal);
    wait_ms = Math.min(retry_ms_max, wait_ms * 2);
  }
}

class RetryableStreamError extends Error {}

function isNetworkError(error: unknown): boolean {
  return error instanceof TypeError || (error instanceof Error && error.name === 'AbortError');
}

function streamUrl(base_url: string, options: FollowOptions, from: number | undefined): string {
  const query = new URLSearchParams();
  if (from !== undefined) query.set('from', String(from));
  if (options.types?.length) query.set('type', options.types.join(','));
  if (options.actor) query.set('actor', options.actor);
  if (options.chunk) query.set('chunk', `${options.chunk.chunk_x},${options.chunk.chunk_y}`);
  const text = query.toString();
  return `${base_url.replace(/\/+$/, '')}/api/v1/events${text ? `?${text}` : ''}`;
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}
