import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { answerOf, DECLINED, fastOnly, serve } from './helpers/fast_path.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { join, look, WORLD_TEST_GENESIS, type Member } from './helpers/world.js';

/**
 * Chunk reads answered by node:http in front of Koa (api/chunk_fast_read.ts on
 * api/fast_reads.ts) are held equal to the chunk route's answers through Koa: status,
 * headers and bytes, for 200, 304, HEAD, a changed chunk, the read limit's 429 and
 * every path the fast path must leave to Koa.
 */

let society: TestSociety;
let fast: { url: string; close(): Promise<void> };
let general: { url: string; close(): Promise<void> };
let member: Member;
/** The chunk the member stands in: revealed in part. */
let home: string;

beforeAll(async () => {
  society = await startTestSociety({ genesis: WORLD_TEST_GENESIS });
  fast = await serve(fastOnly(society.paths));
  general = await serve(society.paths.general);
  member = await join(society, 'surveyor');
  const { position } = await look(member);
  home = `/api/v1/world/chunk/${Math.floor(position.x / 64)}/${Math.floor(position.y / 64)}`;
});
afterAll(async () => {
  await fast?.close();
  await general?.close();
  await society?.destroy();
});
afterEach(() => expect(society.bugs).toEqual([]));

/** The same request through the fast path alone, Koa alone and the server's listener: all three equal, none declined. */
async function expectSameAnswer(path: string, name: string, init: RequestInit = {}) {
  const by_fast = await answerOf(`${fast.url}${path}`, init);
  expect(by_fast.status, `${path} ${name}`).not.toBe(DECLINED);
  expect(by_fast, `${path} ${name}`).toEqual(await answerOf(`${general.url}${path}`, init));
  expect(by_fast, `${path} ${name}`).toEqual(await answerOf(`${society.url}${path}`, init));
  return by_fast;
}

/** The requests each chunk is read with: plain, HEAD, and every kind of If-None-Match. */
function requestsFor(etag: string): [string, RequestInit][] {
  return [
    ['GET', {}],
    ['HEAD', { method: 'HEAD' }],
    ['304', { headers: { 'If-None-Match': etag } }],
    ['304 with no-cache', { headers: { 'If-None-Match': etag, 'Cache-Control': 'no-cache' } }],
    ['HEAD 304', { method: 'HEAD', headers: { 'If-None-Match': etag } }],
    ['other ETag', { headers: { 'If-None-Match': `"${'0'.repeat(64)}"` } }],
    // The chunk route matches the exact tag only: a list, a weak tag or * get the 200, on either path.
    ['list', { headers: { 'If-None-Match': `"${'0'.repeat(64)}", ${etag}` } }],
    ['weak', { headers: { 'If-None-Match': `W/${etag}` } }],
    ['star', { headers: { 'If-None-Match': '*' } }],
  ];
}

describe('the chunk fast path in front of Koa', () => {
  it('answers chunks, revealed and not, 200 and 304, GET and HEAD, exactly as the Koa route does', async () => {
    for (const path of [
      home,
      '/api/v1/world/chunk/0/0',
      '/api/v1/world/chunk/31/31',
      '/api/v1/world/chunk/31/0',
      '/api/v1/world/chunk/05/7',
      `${home}?chunk_x=3&unrelated=1`,
    ]) {
      const etag = (await fetch(`${general.url}${path}`)).headers.get('etag')!;
      expect(etag, path).toMatch(/^"[0-9a-f]{64}"$/);
      for (const [name, init] of requestsFor(etag)) await expectSameAnswer(path, name, init);
    }
    const full = await expectSameAnswer(home, 'GET');
    expect(Object.fromEntries(full.headers)).toMatchObject({
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'content-type': 'application/octet-stream',
      'cache-control': 'no-cache',
    });
    const head = await expectSameAnswer(home, 'HEAD', { method: 'HEAD' });
    expect([head.bytes, new Map(head.headers).get('content-length')]).toEqual([
      '',
      String(Buffer.from(full.bytes, 'base64').length),
    ]);
    const etag = new Map(full.headers).get('etag') as string;
    const not_modified = await expectSameAnswer(home, '304', { headers: { 'If-None-Match': etag } });
    expect([not_modified.status, not_modified.bytes]).toEqual([304, '']);
  });

  it('answers a changed chunk with its new bytes and tag, as Koa does', async () => {
    const before = await answerOf(`${fast.url}${home}`);
    const old_etag = new Map(before.headers).get('etag') as string;
    const { position } = await look(member);
    await member.client.act('world_dig', { x: position.x, y: position.y, z: null });
    const changed = await expectSameAnswer(home, 'after a dig', { headers: { 'If-None-Match': old_etag } });
    expect(changed.status).toBe(200);
    expect(new Map(changed.headers).get('etag')).not.toBe(old_etag);
    expect(changed.bytes).not.toBe(before.bytes);
    const new_etag = new Map(changed.headers).get('etag') as string;
    await expectSameAnswer(home, '304 to the new tag', { headers: { 'If-None-Match': new_etag } });
  });

  it('leaves to Koa every path that is no chunk of the world, and the listener answers as Koa does', async () => {
    const not_chunks = [
      '/api/v1/world/chunk/32/0',
      '/api/v1/world/chunk/0/99',
      '/api/v1/world/chunk/-1/0',
      '/api/v1/world/chunk/1',
      '/api/v1/world/chunk/1/2/',
      '/api/v1/world/chunk/1/2/3',
      '/api/v1/world/chunk/%31/2',
      '/api/v1/world/chunk/a/b',
      '/api/v1/world/chunk/100/1',
      '/api/v1/world/chunk/',
      '/api/v1/world/chunks/1/2',
    ];
    for (const path of not_chunks) {
      expect((await fetch(`${fast.url}${path}`)).status, path).toBe(DECLINED);
      const by_koa = await answerOf(`${general.url}${path}`);
      expect(await answerOf(`${society.url}${path}`), path).toEqual(by_koa);
    }
    expect((await answerOf(`${society.url}/api/v1/world/chunk/32/0`)).status).toBe(404);
    expect((await answerOf(`${society.url}/api/v1/world/chunk/a/b`)).status).toBe(422);
    for (const method of ['POST', 'PUT', 'DELETE', 'OPTIONS'])
      expect((await fetch(`${fast.url}${home}`, { method })).status, method).toBe(DECLINED);
  });

  it('counts each answer in the request metrics under the chunk route, its method and status', async () => {
    const counted = async (method: string, status: number) => {
      const prefix = `tessera_http_request_seconds_count{route="/api/v1/world/chunk/:chunk_x/:chunk_y",method="${method}",status="${status}"}`;
      const text = await (await fetch(`${society.url}/metrics`)).text();
      const line = text.split('\n').find((row) => row.startsWith(prefix));
      return line ? Number(line.split(' ').at(-1)) : 0;
    };
    const etag = (await fetch(`${general.url}${home}`)).headers.get('etag')!;
    const before = [await counted('GET', 200), await counted('HEAD', 200), await counted('GET', 304)];
    for (let i = 0; i < 3; i++) await (await fetch(`${fast.url}${home}`)).arrayBuffer();
    await fetch(`${fast.url}${home}`, { method: 'HEAD' });
    await fetch(`${fast.url}${home}`, { headers: { 'If-None-Match': etag } });
    await fetch(`${fast.url}${home}`, { headers: { 'If-None-Match': etag } });
    expect([await counted('GET', 200), await counted('HEAD', 200), await counted('GET', 304)]).toEqual([
      before[0]! + 3,
      before[1]! + 1,
      before[2]! + 2,
    ]);
  });
});

describe('the read limit on chunk reads', () => {
  it('is one allowance for the fast path and Koa, and past it the 429 is Koa\u2019s on either listener', async () => {
    const limited = await startTestSociety({
      genesis: WORLD_TEST_GENESIS,
      config: { read_limits: { reads_per_second: 1, burst_reads: 4 } },
    });
    const limited_fast = await serve(fastOnly(limited.paths));
    const limited_general = await serve(limited.paths.general);
    try {
      const statuses: number[] = [];
      for (const url of [
        `${limited_fast.url}/api/v1/world/chunk/1/1`,
        `${limited_general.url}/api/v1/world/chunk/1/1`,
        `${limited_fast.url}/log/tile/entries/000.p/1`,
        `${limited.url}/api/v1/world/chunk/2/2`,
      ])
        statuses.push((await fetch(url)).status);
      expect(statuses).toEqual([200, 200, 200, 200]);
      // The allowance is spent: the fast path declines, and Koa refuses, on either listener.
      expect((await fetch(`${limited_fast.url}/api/v1/world/chunk/1/1`)).status).toBe(DECLINED);
      const by_koa = await answerOf(`${limited_general.url}/api/v1/world/chunk/1/1`);
      expect(by_koa.status).toBe(429);
      expect(JSON.parse(Buffer.from(by_koa.bytes, 'base64').toString()).error).toBe('RATE_LIMITED');
      expect(await answerOf(`${limited.url}/api/v1/world/chunk/1/1`)).toEqual(by_koa);
      // A path outside the world spent nothing on the fast path: Koa's 404 is a read, and this one is refused.
      expect((await fetch(`${limited.url}/api/v1/world/chunk/40/0`)).status).toBe(429);
      // A second's refill is one read, whichever path takes it.
      limited.advance(1000);
      expect((await fetch(`${limited_fast.url}/api/v1/world/chunk/1/1`)).status).toBe(200);
      expect((await fetch(`${limited.url}/api/v1/world/chunk/1/1`)).status).toBe(429);
      expect(limited.bugs).toEqual([]);
    } finally {
      await limited_fast.close();
      await limited_general.close();
      await limited.destroy();
    }
  });
});
