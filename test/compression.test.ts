import { request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  BROTLI_QUALITY,
  chosenCoding,
  encode,
  encodedEtag,
  encodingPolicy,
  GZIP_LEVEL,
} from '../api/answer_encoding.js';
import { tilePath, treeBundles, treeTiles } from '../client/tlog/tile_path.js';
import { RawEventStream } from './helpers/raw_event_stream.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { join } from './helpers/world.js';

/**
 * Answers compressed when the client asks (api/answer_encoding.ts): over real HTTP with
 * node:http, which (unlike fetch) sends only the Accept-Encoding given and decodes nothing,
 * so the bytes on the wire are what is checked.
 */

let society: TestSociety;

beforeAll(async () => {
  society = await startTestSociety({ genesis: { world_seed: 'world-tests', params: { voting_window_seconds: 60 } } });
  for (const handle of ['ada', 'bob', 'cyd', 'dee']) {
    const member = await join(society, handle);
    for (let i = 0; i < 3; i++)
      await member.client.act('bulletin_post', { title: `Hello ${i}`, body: `Here, ${handle}, for the ${i}th time.` });
  }
});
afterAll(async () => {
  await society?.destroy();
});
afterEach(() => expect(society.bugs).toEqual([]));

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
}

/** One request as sent, the answer's bytes as received (no decoding). */
function raw(path: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Raw> {
  const url = new URL(path, society.url);
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, bytes: Buffer.concat(parts) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const decoded = (answer: Raw): Buffer => {
  const coding = answer.headers['content-encoding'];
  if (coding === 'gzip') return gunzipSync(answer.bytes);
  if (coding === 'br') return brotliDecompressSync(answer.bytes);
  expect(coding).toBeUndefined();
  return answer.bytes;
};

/** A page's body without what differs per new visitor (its id in the watchers line and cookie). */
const anonymous = (bytes: Buffer): string => bytes.toString('utf8').replace(/v_[0-9a-f]{16}/g, 'v_ID');

/** The log's committed size, from its checkpoint (origin, size, root hash, signatures). */
async function logSize(): Promise<number> {
  const checkpoint = await raw('/log/checkpoint');
  return Number(checkpoint.bytes.toString('utf8').split('\n')[1]);
}
const bundlePath = async () => `/log/${tilePath(treeBundles(await logSize()).at(-1)!)}`;
const hashTilePath = async () => `/log/${tilePath(treeTiles(await logSize()).find(({ level }) => level === 0)!)}`;

/** The answers' bodies hold the same for a path while nothing acts: the society is quiet between requests here. */
const COMPRESSED: [string, () => Promise<string> | string][] = [
  ['a JSON read in front of Koa (a ledger page)', () => '/api/v1/ledger?from=1&limit=100'],
  ['a JSON read through Koa (the OpenAPI document)', () => '/api/v1/openapi.json'],
  ['an HTML page through Koa', () => '/charter'],
  ['plain text through Koa', () => '/llms.txt'],
  ['an entry bundle in front of Koa', bundlePath],
];

describe('answers compressed when the client asks', () => {
  it.each(COMPRESSED)('%s: br and gzip decode to exactly the identity answer, with Vary', async (_name, pathOf) => {
    const path = await pathOf();
    const identity = await raw(path);
    expect(identity.status).toBe(200);
    expect(identity.headers['content-encoding']).toBeUndefined();
    expect(identity.headers.vary).toMatch(/Accept-Encoding/i);
    expect(identity.bytes.length).toBeGreaterThanOrEqual(1024);
    for (const coding of ['gzip', 'br'] as const) {
      const encoded = await raw(path, { 'Accept-Encoding': coding });
      expect(encoded.status, coding).toBe(200);
      expect(encoded.headers['content-encoding'], coding).toBe(coding);
      expect(encoded.headers.vary, coding).toMatch(/Accept-Encoding/i);
      expect(encoded.headers['content-type'], coding).toBe(identity.headers['content-type']);
      expect(Number(encoded.headers['content-length']), coding).toBe(encoded.bytes.length);
      expect(encoded.bytes.length, coding).toBeLessThan(identity.bytes.length);
      console.log(`${path}: ${identity.bytes.length} B, ${coding} ${encoded.bytes.length} B`);
      expect(anonymous(decoded(encoded)), `${path} ${coding}`).toBe(anonymous(identity.bytes));
      if (!path.startsWith('/charter')) expect(decoded(encoded).equals(identity.bytes), `${path} ${coding}`).toBe(true);
      if (identity.headers.etag) expect(encoded.headers.etag).toBe(encodedEtag(String(identity.headers.etag), coding));
      // HEAD: GET's headers, no body.
      const head = await raw(path, { 'Accept-Encoding': coding }, 'HEAD');
      // A page's encoded length varies with the new visitor's id in it.
      const length = path === '/charter' ? expect.stringMatching(/^\d+$/) : encoded.headers['content-length'];
      expect([head.headers['content-encoding'], head.headers['content-length'], head.bytes.length]).toEqual([
        coding,
        length,
        0,
      ]);
    }
  });

  it('the front page in front of Koa: each new visitor its own watchers line, the page compressed', async () => {
    for (const coding of ['gzip', 'br'] as const) {
      const encoded = await raw('/', { 'Accept-Encoding': coding });
      expect([encoded.status, encoded.headers['content-encoding'], encoded.headers.vary]).toEqual([
        200,
        coding,
        'Accept-Encoding',
      ]);
      expect(encoded.headers['set-cookie']).toBeDefined();
      const page = decoded(encoded).toString('utf8');
      expect(page).toMatch(/^<!doctype html>/i);
      expect(page).toMatch(/<\/html>\s*$/);
    }
  });

  it('honours quality values, and answers identity when not asked or told not to', async () => {
    const path = '/api/v1/openapi.json';
    const cases: [string, string | undefined][] = [
      ['gzip;q=1, br;q=0.5', 'gzip'],
      ['br;q=0.9, gzip;q=0.8', 'br'],
      ['gzip, br', 'br'],
      ['br;q=0, gzip', 'gzip'],
      ['*', 'br'],
      ['*;q=0.5, br;q=0', 'gzip'],
      ['identity', undefined],
      ['gzip;q=0, br;q=0', undefined],
      ['deflate', undefined],
      ['', undefined],
    ];
    for (const [accept, coding] of cases) {
      expect(chosenCoding(accept), accept).toBe(coding);
      const answer = await raw(path, accept === '' ? {} : { 'Accept-Encoding': accept });
      expect(answer.headers['content-encoding'], accept).toBe(coding);
      expect(answer.headers.vary, accept).toBe('Accept-Encoding');
    }
  });

  it('a small answer is sent as it is, without Vary', async () => {
    const answer = await raw('/healthz', { 'Accept-Encoding': 'gzip, br' });
    expect(answer.bytes.length).toBeLessThan(1024);
    expect(answer.headers['content-encoding']).toBeUndefined();
    expect(answer.headers.vary).toBeUndefined();
  });

  it('a hash tile is sent as it is (random hashes: encoding saves nothing), without Vary', async () => {
    const path = await hashTilePath();
    const identity = await raw(path);
    expect(identity.status).toBe(200);
    expect(identity.bytes.length).toBeGreaterThan(0);
    const asked = await raw(path, { 'Accept-Encoding': 'gzip, br' });
    expect(asked.headers['content-encoding']).toBeUndefined();
    expect(asked.headers.vary).toBeUndefined();
    expect(asked.bytes.equals(identity.bytes)).toBe(true);
    expect(asked.headers.etag).toBe(identity.headers.etag);
    // Why: gzip of hashes is no smaller.
    expect(encode(identity.bytes, 'gzip').length).toBeGreaterThan(identity.bytes.length * 0.9);
    expect(encodingPolicy('application/octet-stream', path)).toBe('never');
    expect(encodingPolicy('application/octet-stream', await bundlePath())).toBe('measured');
  });

  it('a chunk binary is sent as it is: small, run-length encoded, and its ETag announced as it is', async () => {
    for (const path of ['/api/v1/world/chunk/0/0', '/api/v1/world/chunk/3/4']) {
      const identity = await raw(path);
      expect(identity.status, path).toBe(200);
      const asked = await raw(path, { 'Accept-Encoding': 'gzip, br' });
      console.log(`${path}: ${identity.bytes.length} B, gzip ${encode(identity.bytes, 'gzip').length} B`);
      expect([asked.headers['content-encoding'], asked.headers.vary, asked.headers.etag], path).toEqual([
        undefined,
        undefined,
        identity.headers.etag,
      ]);
      expect(asked.bytes.equals(identity.bytes), path).toBe(true);
      expect(encodingPolicy('application/octet-stream', path)).toBe('never');
    }
  });

  it('revalidates each representation with its own ETag: 304 for the encoded one held, 200 for another', async () => {
    for (const path of [await bundlePath()]) {
      const identity = await raw(path);
      const gzip = await raw(path, { 'Accept-Encoding': 'gzip' });
      const gzip_etag = String(gzip.headers.etag);
      expect(gzip_etag).toMatch(/^"[0-9a-f]{64}-gzip"$/);
      expect(gzip_etag).not.toBe(identity.headers.etag);

      const again = await raw(path, { 'Accept-Encoding': 'gzip', 'If-None-Match': gzip_etag });
      expect([again.status, again.bytes.length, again.headers.etag, again.headers.vary]).toEqual([
        304,
        0,
        gzip_etag,
        'Accept-Encoding',
      ]);
      expect(again.headers['content-encoding']).toBeUndefined();
      expect((await raw(path, { 'Accept-Encoding': 'gzip', 'If-None-Match': `W/${gzip_etag}` })).status).toBe(304);
      expect((await raw(path, { 'Accept-Encoding': 'gzip', 'If-None-Match': `"x", ${gzip_etag}` })).status).toBe(304);
      // The identity's ETag, or br's, names another representation: the gzip one is sent.
      const other = await raw(path, { 'Accept-Encoding': 'gzip', 'If-None-Match': String(identity.headers.etag) });
      expect([other.status, other.headers['content-encoding']]).toEqual([200, 'gzip']);
      expect(
        (
          await raw(path, {
            'Accept-Encoding': 'gzip',
            'If-None-Match': encodedEtag(String(identity.headers.etag), 'br'),
          })
        ).status,
      ).toBe(200);
      // Without Accept-Encoding the identity's ETag revalidates the identity.
      const plain = await raw(path, { 'If-None-Match': String(identity.headers.etag) });
      expect([plain.status, plain.headers.etag, plain.headers.vary]).toEqual([
        304,
        identity.headers.etag,
        'Accept-Encoding',
      ]);
      expect((await raw(path, { 'If-None-Match': gzip_etag })).status).toBe(200);
    }
  });

  it('never compresses an event stream', async () => {
    for (const path of ['/api/v1/events', '/api/v1/world/changes']) {
      const stream = await RawEventStream.open(society.url, path, { headers: { 'Accept-Encoding': 'gzip, br' } });
      try {
        expect(stream.res.headers['content-type']).toMatch(/^text\/event-stream/);
        expect(stream.res.headers['content-encoding']).toBeUndefined();
      } finally {
        stream.close();
      }
    }
    expect(encodingPolicy('text/event-stream; charset=utf-8', '/api/v1/events')).toBe('never');
    expect(encodingPolicy('application/rss+xml; charset=utf-8', '/chronicle.rss')).toBe('text');
    expect(encodingPolicy('text/markdown; charset=utf-8', '/x.md')).toBe('text');
  });

  it('encodes a typical ledger page and page within a read’s CPU (measured, logged)', async () => {
    const page = decoded(await raw('/api/v1/ledger?from=1&limit=100'));
    const html = decoded(await raw('/charter'));
    const openapi = decoded(await raw('/api/v1/openapi.json'));
    for (const [name, body] of [
      ['ledger page', page],
      ['charter page', html],
      ['openapi.json', openapi],
    ] as const) {
      for (const coding of ['gzip', 'br'] as const) {
        encode(body, coding);
        const runs = 50;
        const started = process.cpuUsage();
        let out: Buffer = Buffer.alloc(0);
        for (let i = 0; i < runs; i++) out = encode(body, coding);
        const { user, system } = process.cpuUsage(started);
        const ms = (user + system) / 1000 / runs;
        console.log(
          `${name}: ${body.length} B -> ${coding} ${out.length} B in ${ms.toFixed(3)} ms (gzip level ${GZIP_LEVEL}, brotli quality ${BROTLI_QUALITY})`,
        );
        // A read buys 2 ms of CPU by default; a shared CI machine is slow, hence the margin.
        expect(ms, `${name} ${coding}`).toBeLessThan(20);
      }
    }
  });
});
