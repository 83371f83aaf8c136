import { request } from 'node:http';
import { Writable } from 'node:stream';
import type { ServerResponse } from 'node:http';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { followLedger } from '../client/event_stream.js';
import type { WireEntry } from '../client/ledger_check.js';
import { EventHub } from '../api/events/event_hub.js';
import { EVENT_STREAM_LIMITS } from '../api/events/event_limits.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { join, pacing, type Member } from './helpers/world.js';

let society: TestSociety;
let ada: Member;
let step: () => string;

beforeAll(async () => {
  society = await startTestSociety({
    genesis: { world_seed: 'world-tests' },
    config: { event_stream_limits: { streams_per_address_max: 1_100, subscribers_max: 1_100 } },
  });
  ada = await join(society, 'ada');
  step = pacing(society, ada);
}, 60_000);
afterAll(() => society.destroy());
afterEach(() => expect(society.bugs).toEqual([]));

/** Takes `count` entries from an iterator, then stops it (closing its connection). */
async function take(entries: AsyncGenerator<WireEntry>, count: number): Promise<WireEntry[]> {
  const taken: WireEntry[] = [];
  if (count === 0) return taken;
  for await (const entry of entries) {
    taken.push(entry);
    if (taken.length === count) break;
  }
  return taken;
}

const head = () => society.store.ledgerHead().seq;

describe('the event stream', () => {
  it('delivers an act’s entries after their commit, never before, in seq order', async () => {
    const controller = new AbortController();
    const seen: { seq: number; durable_head: number }[] = [];
    let end = Number.POSITIVE_INFINITY;
    const following = (async () => {
      for await (const entry of followLedger(society.url, { signal: controller.signal }, fetch)) {
        // Published only once durable: the store's head is already at or past it when it arrives.
        seen.push({ seq: entry.seq, durable_head: head() });
        if (entry.seq >= end) controller.abort();
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 100));
    const start = head();
    for (const handle of ['bob', 'cyd', 'dee']) {
      await join(society, handle);
      // The act is answered once durable, and its entry is out on the stream by then or just after.
      expect(seen.length === 0 || seen.at(-1)!.seq <= head()).toBe(true);
    }
    end = head();
    if (seen.at(-1)?.seq === end) controller.abort();
    await following;
    expect(seen.map((item) => item.seq)).toEqual(Array.from({ length: end - start }, (_, i) => start + 1 + i));
    for (const item of seen) expect(item.durable_head).toBeGreaterThanOrEqual(item.seq);
  });

  it('resumes after a disconnect from Last-Event-ID, missing nothing and repeating nothing', async () => {
    const total = head();
    const first = await take(followLedger(society.url, { from: 1 }), 3);
    expect(first.map((entry) => entry.seq)).toEqual([1, 2, 3]);
    // What a browser does on reconnect: the header names the last seq it saw.
    const response = await fetch(`${society.url}/api/v1/events?from=1`, { headers: { 'Last-Event-ID': '3' } });
    const text = await readUntil(response, `id: ${total}\n`);
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]));
    expect(ids).toEqual(Array.from({ length: total - 3 }, (_, i) => i + 4));
    const entries = [...text.matchAll(/^data: (.*)$/gm)].map((match) => JSON.parse(match[1]!) as WireEntry);
    const ledger = (await (await fetch(`${society.url}/api/v1/ledger?from=4&limit=1000`)).json()) as {
      entries: WireEntry[];
    };
    expect(entries.map((entry) => entry.hash)).toEqual(ledger.entries.map((entry) => entry.hash));
  });

  it('filters by event type, actor and chunk', async () => {
    const registrations = await take(followLedger(society.url, { from: 1, types: ['agent_registered'] }), 2);
    expect(registrations.every((entry) => entry.event_type === 'agent_registered')).toBe(true);
    const by_ada = await take(followLedger(society.url, { from: 1, actor: ada.id }), 1);
    expect(by_ada[0]!.actor).toBe(ada.id);
    const position = society.engine.state.world.agents.get(ada.id)!;
    const chunk = { chunk_x: Math.floor(position.x / 64), chunk_y: Math.floor(position.y / 64) };
    const moved = ada.client.act('world_move', { path: [step()] });
    const here = await take(followLedger(society.url, { from: head() + 1, chunk }), 1);
    await moved;
    expect(here[0]!.event_type).toBe('agent_moved');
    // An actor's stream is fed from an index by actor; its other filters still apply.
    const moves = await take(followLedger(society.url, { from: 1, actor: ada.id, types: ['agent_moved'] }), 1);
    expect([moves[0]!.actor, moves[0]!.event_type]).toEqual([ada.id, 'agent_moved']);
    const far = { chunk_x: (chunk.chunk_x + 16) % 32, chunk_y: chunk.chunk_y };
    const nothing = await firstWithin(followLedger(society.url, { from: 1, chunk: far }), 300);
    expect(nothing).toBeUndefined();
  });

  it('refuses bad filters and a bad Last-Event-ID with 422 naming them', async () => {
    for (const [query, loc] of [
      ['from=0', 'from'],
      ['from=x', 'from'],
      ['type=Not%20A%20Type', 'type'],
      ['chunk=32,1', 'chunk'],
    ] as const) {
      const response = await fetch(`${society.url}/api/v1/events?${query}`);
      const body = (await response.json()) as { detail: { loc: string[] }[] };
      expect([response.status, body.detail[0]!.loc]).toEqual([422, ['query', loc]]);
    }
    const response = await fetch(`${society.url}/api/v1/events`, { headers: { 'Last-Event-ID': 'abc' } });
    const body = (await response.json()) as { detail: { loc: string[] }[] };
    expect([response.status, body.detail[0]!.loc]).toEqual([422, ['header', 'last-event-id']]);
  });

  it('delivers every entry of a burst to 1,000 concurrent subscribers', async () => {
    const subscribers = 1_000;
    const burst = 20;
    const from = head() + 1;
    const streams = await Promise.all(
      Array.from({ length: subscribers }, () => openRaw(`/api/v1/events?from=${from}`)),
    );
    const members = await Promise.all(Array.from({ length: burst }, (_, i) => join(society, `burst-${i}`)));
    expect(members).toHaveLength(burst);
    const last = head();
    const received = await Promise.all(streams.map((stream) => stream.until(last)));
    for (const ids of received) expect(ids).toEqual(Array.from({ length: last - from + 1 }, (_, i) => from + i));
    for (const stream of streams) stream.close();
  }, 120_000);
});

describe('the world-change stream', () => {
  it('names each chunk a durable tick changed, with the ETag its chunk read now answers', async () => {
    const response = await fetch(`${society.url}/api/v1/world/changes`);
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const events = response
      .body!.pipeThrough(new TextDecoderStream())
      .pipeThrough(new EventSourceParserStream())
      .getReader();
    // A dig always changes its chunk (a move may only cross tiles already revealed).
    const spot = society.engine.state.world.agents.get(ada.id)!;
    await ada.client.act('world_dig', { x: spot.x, y: spot.y, z: null });
    const { value } = await events.read();
    await events.cancel();
    expect(value!.event).toBe('chunks');
    const changes = JSON.parse(value!.data) as {
      seq: number;
      chunks: { chunk_x: number; chunk_y: number; etag: string }[];
    };
    const after = society.engine.state.world.agents.get(ada.id)!;
    const here = changes.chunks.find(
      (chunk) => chunk.chunk_x === Math.floor(after.x / 64) && chunk.chunk_y === Math.floor(after.y / 64),
    );
    expect(here).toBeDefined();
    const read = await fetch(`${society.url}/api/v1/world/chunk/${here!.chunk_x}/${here!.chunk_y}`);
    expect(read.headers.get('etag')).toBe(here!.etag);
    expect(changes.seq).toBe(head());
  });
});

describe('a subscriber that stops reading', () => {
  it('is cut off past its buffer with a last event naming where to resume, while others keep receiving', () => {
    const ledger = { head: () => ({ seq: 0, hash: '' }), page: () => [] as string[] };
    const limits = { ...EVENT_STREAM_LIMITS, buffer_bytes_max: 4096 };
    const hub = new EventHub({ ...limits, ledger, clock: () => 0 });
    const stalled = new StuckSocket();
    const reading = new StuckSocket(true);
    hub.subscribe(stalled.response, () => true, false, undefined);
    hub.subscribe(reading.response, () => true, false, undefined);
    let published = 0;
    for (let seq = 1; seq <= 200; seq++) {
      hub.publish([{ seq, json: JSON.stringify({ seq, padding: 'x'.repeat(100) }) }]);
      published = seq;
      // Bounded: never more than the limit plus one entry and the last event.
      expect(stalled.response.writableLength).toBeLessThan(4096 + 512);
    }
    expect(hub.size).toBe(1);
    const last = stalled.written.at(-1)!;
    expect(last).toMatch(/^event: dropped\ndata: \{"reason":"slow_reader","resume_from":\d+\}\n\n$/);
    const resume_from = JSON.parse(last.split('data: ')[1]!).resume_from as number;
    const delivered = stalled.written.filter((chunk) => chunk.startsWith('id: ')).length;
    expect(resume_from).toBe(delivered + 1);
    expect(reading.written.filter((chunk) => chunk.startsWith('id: '))).toHaveLength(published);
    hub.close();
  });

  it('is cut off when it reads nothing for stall_seconds, even with little buffered', () => {
    let now_ms = 0;
    const ledger = { head: () => ({ seq: 0, hash: '' }), page: () => [] as string[] };
    const hub = new EventHub({ ...EVENT_STREAM_LIMITS, stall_seconds: 30, ledger, clock: () => now_ms });
    const stalled = new StuckSocket();
    hub.subscribe(stalled.response, () => true, false, undefined);
    hub.publish([{ seq: 1, json: '{"seq":1}' }]);
    const beat = () => hub.beat();
    beat();
    now_ms += 29_000;
    beat();
    expect(hub.size).toBe(1);
    now_ms += 2_000;
    beat();
    expect(hub.size).toBe(0);
    expect(stalled.written.at(-1)).toBe('event: dropped\ndata: {"reason":"stalled","resume_from":2}\n\n');
    hub.close();
  });
});

/** A response whose socket never sends (or, reading, sends at once): its unsent bytes are writableLength. */
class StuckSocket {
  /** Everything the hub wrote, in order, whether or not the socket took it. */
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
    writable.write = (chunk: string) => {
      written.push(chunk);
      return write.call(writable, chunk, 'utf8');
    };
    writable.end = ((chunk?: string) => {
      if (chunk !== undefined) written.push(chunk);
      return end.call(writable, chunk, 'utf8');
    }) as typeof writable.end;
    this.response = writable as unknown as ServerResponse;
  }
}

async function readUntil(response: Response, marker: string): Promise<string> {
  const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
  let text = '';
  while (!text.includes(marker)) {
    const { value, done } = await reader.read();
    if (done) break;
    text += value;
  }
  await reader.cancel();
  return text;
}

async function firstWithin(entries: AsyncGenerator<WireEntry>, ms: number): Promise<WireEntry | undefined> {
  const timeout = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms));
  const first = entries.next().then((result) => result.value as WireEntry | undefined);
  const winner = await Promise.race([first, timeout]);
  void entries.return(undefined);
  return winner;
}

/** A bare HTTP stream reader (no fetch machinery), for many subscribers at once. */
function openRaw(path: string): Promise<{ until(seq: number): Promise<number[]>; close(): void }> {
  return new Promise((resolve, reject) => {
    const req = request(`${society.url}${path}`, { agent: false }, (res) => {
      let text = '';
      const ids: number[] = [];
      let waiting: { seq: number; done: (ids: number[]) => void } | undefined;
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        text += chunk;
        for (const match of text.matchAll(/^id: (\d+)$/gm)) ids.push(Number(match[1]));
        text = text.slice(text.lastIndexOf('\n\n') + 2);
        if (waiting && ids.at(-1)! >= waiting.seq) waiting.done(ids);
      });
      resolve({
        until: (seq) =>
          new Promise((done) => {
            if (ids.at(-1)! >= seq) done(ids);
            else waiting = { seq, done };
          }),
        close: () => req.destroy(),
      });
    });
    req.on('error', reject);
    req.end();
  });
}
