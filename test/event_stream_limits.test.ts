import type { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { registerMembers } from '../bench/members.js';
import { EventHub } from '../api/events/event_hub.js';
import { EVENT_STREAM_LIMITS, type EventStreamLimits } from '../api/events/event_limits.js';
import { RawEventStream } from './helpers/raw_event_stream.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { onThisMachine } from './helpers/machine_pace.js';

/**
 * The event streams' bounds under a hostile or slow client (issue 30): a stream counts
 * against both caps from its first byte, backlog or live; a backlog goes out under the same
 * byte and stall bounds as live entries; a reader too slow for the ledger gets `dropped`
 * with a resume point that misses nothing; a filter that can match nothing is refused.
 */

const KiB = 1024;

/** A society whose clock runs with real time, as the stall check needs, with small stream bounds. */
async function streamingSociety(limits: Partial<EventStreamLimits>): Promise<{ society: TestSociety; stop(): void }> {
  const society = await startTestSociety({
    genesis: { world_seed: 'stream-limits' },
    config: { event_stream_limits: limits },
  });
  let last_ms = Date.now();
  const ticking = setInterval(() => {
    const now_ms = Date.now();
    society.advance(now_ms - last_ms);
    last_ms = now_ms;
  }, 20);
  return { society, stop: () => clearInterval(ticking) };
}

/** Ledger entries straight through the engine (a registration each, ~500 bytes), `per_tick` to a tick. */
async function grow(society: TestSociety, entries: number, per_tick: number, prefix: string): Promise<void> {
  for (let done = 0; done < entries; done += per_tick)
    await registerMembers(society.engine, per_tick, `${prefix}${done}`);
}

const head = (society: TestSociety) => society.store.ledgerHead().seq;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('stream caps and stalls (2 streams per address, 8 in all, 64 KiB buffered, 1 s stall)', () => {
  const stall_seconds = 1;
  let society: TestSociety;
  let stop: () => void;
  const streams: RawEventStream[] = [];
  const open = async (path: string, local_address: string, headers?: Record<string, string>) => {
    const stream = await RawEventStream.open(society.url, path, { local_address, headers });
    streams.push(stream);
    return stream;
  };

  beforeAll(async () => {
    ({ society, stop } = await streamingSociety({
      streams_per_address_max: 2,
      subscribers_max: 8,
      buffer_bytes_max: 64 * KiB,
      socket_write_bytes_max: 16 * KiB,
      stall_seconds,
    }));
    // About 12 MB of ledger: more than loopback's kernel buffers take for a client that reads nothing.
    await grow(society, 25_000, 5_000, 'backlog');
  }, 120_000);
  afterEach(async () => {
    for (const stream of streams.splice(0)) stream.close();
    // The server counts a stream until its connection is gone.
    await sleep(300);
    expect(society.bugs).toEqual([]);
  });
  afterAll(async () => {
    stop();
    await society.destroy();
  });

  it('counts streams that start with a backlog (from, Last-Event-ID) against the per-address cap', async () => {
    const by_from = await open('/api/v1/events?from=1', '127.0.1.1');
    const by_header = await open('/api/v1/events', '127.0.1.1', { 'Last-Event-ID': '1' });
    expect([by_from.status, by_header.status]).toEqual([200, 200]);
    // Long enough for a stream whose backlog was cut off at once, and its response ended, to have let its place go.
    await sleep(300);
    const third = await open('/api/v1/events?from=1', '127.0.1.1');
    expect(third.status).toBe(429);
    expect(await third.text()).toContain('At most 2 event streams per client');
    // Another address has places of its own.
    expect((await open('/api/v1/events?from=1', '127.0.1.2')).status).toBe(200);
  });

  it('counts streams that start with a backlog against the global cap, over several addresses', async () => {
    for (let address = 1; address <= 4; address++)
      for (const from of [1, 2])
        expect((await open(`/api/v1/events?from=${from}`, `127.0.2.${address}`)).status).toBe(200);
    await sleep(300);
    const ninth = await open('/api/v1/events?from=1', '127.0.2.5');
    expect(ninth.status).toBe(429);
    expect(await ninth.text()).toContain('all the event streams it takes');
  });

  it('resets a backlog stream whose client reads nothing within 1.25 stall_seconds, and frees its place', async () => {
    const started_ms = Date.now();
    const idle = [await open('/api/v1/events?from=1', '127.0.3.1'), await open('/api/v1/events?from=1', '127.0.3.1')];
    expect(idle.map((stream) => stream.status)).toEqual([200, 200]);
    // Both hold their places while the kernel's buffers fill and the server's bounded share waits...
    expect((await open('/api/v1/events?from=1', '127.0.3.1')).status).toBe(429);
    // ...until nothing has moved for stall_seconds: checked every quarter of it, then reset.
    let freed_ms: number | undefined;
    while (freed_ms === undefined && Date.now() - started_ms < 10_000) {
      await sleep(100);
      const probe = await open('/api/v1/events', '127.0.3.1');
      if (probe.status === 200) freed_ms = Date.now() - started_ms;
      probe.close();
    }
    expect(freed_ms).toBeDefined();
    // The kernel's buffers fill within a moment on loopback; a second of slack for a loaded machine.
    expect(freed_ms!).toBeLessThan(onThisMachine(stall_seconds * 1250 + 1000, stall_seconds * 1000));
    // The client, reading at last, finds its connection reset part-way through the backlog.
    const [first] = idle;
    await first!.readUntil(() => false);
    expect(await first!.ended).toBe('cut');
    expect(first!.ids.length).toBeGreaterThan(0);
    expect(first!.ids.at(-1)!).toBeLessThan(head(society));
    expect(first!.ids).toEqual(range(1, first!.ids.length));
  });

  it('refuses an event type the ledger does not have and an actor that is not an agent id, with 422', async () => {
    for (const [query, loc] of [
      ['type=nope', 'type'],
      ['type=agent_registered,nope', 'type'],
      ['actor=x', 'actor'],
      ['actor=ag_0123', 'actor'],
    ] as const) {
      // Refused at once; a stream accepted for it would deliver nothing, ever.
      const response = await fetch(`${society.url}/api/v1/events?${query}`, { signal: AbortSignal.timeout(5_000) });
      const body = (await response.json()) as { detail: { loc: string[]; msg: string; type: string }[] };
      expect([response.status, body.detail[0]!.loc]).toEqual([422, ['query', loc]]);
      expect(body.detail[0]!.msg).toMatch(/must be/);
      expect(typeof body.detail[0]!.type).toBe('string');
    }
    for (const query of ['type=agent_registered,vote_cast,ap_spent', 'actor=system', 'actor=ag_0123456789abcdef']) {
      const stream = await open(`/api/v1/events?${query}`, '127.0.4.1');
      expect(stream.status).toBe(200);
      stream.close();
      await sleep(50);
    }
  });
});

describe('slow readers (64 KiB buffered, 16 KiB to the socket at once)', () => {
  let society: TestSociety;
  let stop: () => void;

  beforeAll(async () => {
    ({ society, stop } = await streamingSociety({
      buffer_bytes_max: 64 * KiB,
      socket_write_bytes_max: 16 * KiB,
      // Longer than the burst takes to publish: these readers pause, they do not stall.
      stall_seconds: 30,
    }));
  }, 60_000);
  afterEach(() => expect(society.bugs).toEqual([]));
  afterAll(async () => {
    stop();
    await society.destroy();
  });

  it('cuts off a reader too slow for the ledger with `dropped` naming the first entry it was not sent; resuming there misses nothing', async () => {
    const start = head(society) + 1;
    const slow = await RawEventStream.open(society.url, '/api/v1/events');
    // ~9 MB in ticks of ~45 KB while it reads nothing: past the kernel's buffers, then past its own bound.
    await grow(society, 20_000, 100, 'burst');
    await slow.readUntil(() => false);
    expect(await slow.ended).toBe('complete');
    const last = slow.events.at(-1)!;
    expect(last.event).toBe('dropped');
    const { reason, resume_from } = JSON.parse(last.data) as { reason: string; resume_from: number };
    expect(reason).toBe('slow_reader');
    expect(slow.ids).toEqual(range(start, resume_from - 1));
    expect(resume_from).toBeLessThan(head(society));
    // Resumed where it said: the rest comes from the store, at the client's pace, and nothing is cut off.
    const resumed = await RawEventStream.open(society.url, `/api/v1/events?from=${resume_from}`);
    const end = head(society);
    await resumed.readUntil((events) => events.at(-1)?.id === String(end) || events.at(-1)?.event === 'dropped');
    resumed.close();
    expect(resumed.events.filter((event) => event.event === 'dropped')).toEqual([]);
    expect([...slow.ids, ...resumed.ids]).toEqual(range(start, end));
  }, 120_000);

  it('does not cut off a reader that keeps up when a tick is larger than its buffer', async () => {
    const start = head(society) + 1;
    const reader = (await RawEventStream.open(society.url, '/api/v1/events')).read();
    // Ticks of up to 1,024 registrations, ~450 KB each.
    await registerMembers(society.engine, 3_000, 'big-ticks');
    const end = head(society);
    await reader.readUntil((events) => events.at(-1)?.id === String(end) || events.at(-1)?.event === 'dropped');
    reader.close();
    expect(reader.events.filter((event) => event.event === 'dropped')).toEqual([]);
    expect(reader.ids).toEqual(range(start, end));
  }, 60_000);
});

describe('a cut-off stream’s `dropped` event', () => {
  it('follows at most socket_write_bytes_max of what the stream had not sent: its queued entries are discarded', () => {
    const limits = { ...EVENT_STREAM_LIMITS, buffer_bytes_max: 64 * KiB, socket_write_bytes_max: 4 * KiB };
    const stored: string[] = [];
    const ledger = {
      head: () => ({ seq: 0, hash: '' }),
      page: (from: number, count: number) => stored.slice(from - 1, from - 1 + count),
    };
    const hub = new EventHub({ ...limits, ledger, clock: () => 0 });
    const socket = new HeldSocket();
    hub.subscribe(socket.response, () => true, false, undefined);
    for (let seq = 1; seq <= 400; seq++) {
      stored.push(JSON.stringify({ seq, padding: 'x'.repeat(500) }));
      hub.publish([{ seq, json: stored.at(-1)! }]);
    }
    expect(hub.size).toBe(0);
    // What the client gets: everything handed to the socket, then `dropped`.
    const text = socket.written.join('');
    const dropped_at = text.indexOf('event: dropped');
    expect(dropped_at).toBeGreaterThan(0);
    expect(dropped_at).toBeLessThanOrEqual(4 * KiB + 600);
    const delivered = [...text.slice(0, dropped_at).matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
    const { resume_from } = JSON.parse(/data: (.*)\n\n$/.exec(text)![1]!) as { resume_from: number };
    expect(delivered).toEqual(range(1, resume_from - 1));
    // Resuming there from the store, with a reader that keeps up, misses nothing.
    const resumed = new HeldSocket(true);
    hub.subscribe(resumed.response, () => true, false, resume_from);
    return new Promise<void>((resolve) => setTimeout(resolve, 50)).then(() => {
      const ids = [...resumed.written.join('').matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
      expect(ids).toEqual(range(resume_from, 400));
      hub.close();
    });
  });
});

/**
 * A response whose socket takes nothing (or, reading, everything at once): what was written
 * and not taken is its writableLength. `written` is everything written to it, in order.
 */
class HeldSocket {
  readonly written: string[] = [];
  readonly response: ServerResponse;

  constructor(reading = false) {
    const writable = new Writable({
      highWaterMark: 1024,
      write(_chunk: Buffer, _encoding, callback) {
        if (reading) callback();
      },
    });
    const { write, end } = writable;
    const written = this.written;
    writable.write = ((chunk: string, callback?: () => void) => {
      written.push(chunk);
      return write.call(writable, chunk, 'utf8', callback);
    }) as typeof writable.write;
    writable.end = ((chunk?: string, callback?: () => void) => {
      if (typeof chunk === 'string') written.push(chunk);
      return end.call(writable, chunk, 'utf8', callback);
    }) as typeof writable.end;
    this.response = writable as unknown as ServerResponse;
  }
}
