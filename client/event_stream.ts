import { EventSourceParserStream } from 'eventsource-parser/stream';
import type { WireEntry } from './ledger_check.js';

/** What to follow: the stream's own filters (GET /api/v1/events), and where to start. */
export interface FollowOptions {
  /** The first seq wanted; absent, only entries committed from now on. */
  from?: number;
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
}

const retry_ms_max = 30_000;

/**
 * The society's ledger as it grows, one entry at a time, for `for await`. It reconnects
 * by itself after a dropped connection or a `dropped` event, resuming right after the
 * last entry it yielded, so a consumer sees every matching entry once, in seq order. It
 * uses only fetch and web streams, so it runs in Node, Deno, Bun and browsers alike.
 */
export async function* followLedger(
  base_url: string,
  options: FollowOptions = {},
  fetcher: typeof fetch = fetch,
): AsyncGenerator<WireEntry> {
  let next_seq = options.from;
  let wait_ms = options.retry_ms ?? 500;
  while (!options.signal?.aborted) {
    try {
      const response = await fetcher(streamUrl(base_url, options, next_seq), {
        headers: { accept: 'text/event-stream' },
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
          next_seq = entry.seq + 1;
          wait_ms = options.retry_ms ?? 500;
          yield entry;
        } else if (event.event === 'dropped') {
          next_seq = (JSON.parse(event.data) as { resume_from: number }).resume_from;
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
