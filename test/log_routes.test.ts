import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { freshPubkey } from '../bench/members.js';
import { SigningMember } from '../bench/signing_member.js';
import { hashesEqual, nobleHasher as hasher, type Hash } from '../client/tlog/hasher.js';
import { CompactRange, verifyConsistency, verifyInclusion } from '../client/tlog/merkle.js';
import {
  decodeBundle,
  ENTRIES_LEVEL,
  tileHashes,
  tilePath,
  treeBundles,
  treeTiles,
  type TileId,
} from '../client/tlog/tile_path.js';
import { answerOf, DECLINED, fastOnly, serve } from './helpers/fast_path.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { join, look, stepInto, WORLD_TEST_GENESIS, worldOf } from './helpers/world.js';

let society: TestSociety;
/** The committed tree size once the society is grown: the ledger head seq. */
let size: number;

interface Fetched {
  status: number;
  headers: Headers;
  bytes: Buffer;
}

/** Identity unless a test asks otherwise: an encoded answer's ETag names its coding (test/compression.test.ts). */
async function get(path: string, headers: Record<string, string> = {}): Promise<Fetched> {
  const response = await fetch(`${society.url}${path}`, { headers: { 'Accept-Encoding': 'identity', ...headers } });
  return { status: response.status, headers: response.headers, bytes: Buffer.from(await response.arrayBuffer()) };
}

const json = (fetched: Fetched) => JSON.parse(fetched.bytes.toString('utf8'));
const fromBase64 = (text: string): Hash => Uint8Array.from(Buffer.from(text, 'base64'));

async function tile(tile: TileId): Promise<Buffer> {
  const fetched = await get(`/log/${tilePath(tile)}`);
  expect(fetched.status, tilePath(tile)).toBe(200);
  return fetched.bytes;
}

/** Every entry of the committed tree, from its entry bundles. */
async function entriesFromBundles(): Promise<Uint8Array[]> {
  const entries: Uint8Array[] = [];
  for (const bundle of treeBundles(size)) entries.push(...decodeBundle(await tile(bundle)));
  return entries;
}

/** A few members walk over HTTP; many more register and swap backup keys through the engine, all signed for real. */
async function growLedger(entries_min: number): Promise<void> {
  const world = worldOf(society);
  for (const handle of ['walker-a', 'walker-b', 'walker-c']) {
    const member = await join(society, handle);
    for (let step = 0; step < 6; step++) {
      const { position } = await look(member);
      const direction = ['plains', 'forest', 'ruins', 'hills', 'desert']
        .map((biome) => stepInto(world, position.x, position.y, biome))
        .find((found) => found !== undefined);
      if (direction) await member.client.act('world_move', { path: [direction] });
    }
  }
  const members = Array.from({ length: 60 }, () => new SigningMember());
  const registered = await Promise.all(members.map((m, i) => society.engine.submit(m.register(`filler-${i}`))));
  expect(registered.every((outcome) => outcome.ok)).toBe(true);
  while (society.engine.state.ledger_head.seq < entries_min) {
    const outcomes = await Promise.all(members.map((m) => society.engine.submit(m.registerBackupKey(freshPubkey()))));
    expect(outcomes.every((outcome) => outcome.ok)).toBe(true);
  }
  await society.engine.drain();
}

beforeAll(async () => {
  society = await startTestSociety({ genesis: WORLD_TEST_GENESIS });
  await growLedger(600);
  size = society.store.ledgerHead().seq;
}, 120_000);
afterAll(async () => society?.destroy());
afterEach(() => expect(society.bugs).toEqual([]));

describe('tiles and entry bundles of the committed tree', () => {
  it('has grown past two full level-0 tiles, with a partial one and a level-1 tile', () => {
    expect(size).toBeGreaterThan(512);
    expect(size % 256).toBeGreaterThan(0);
    expect(society.engine.log_tree.size).toBe(size);
    const levels = treeTiles(size).map(({ level, width }) => `${level}:${width === 256 ? 'full' : 'partial'}`);
    expect(new Set(levels)).toEqual(new Set(['0:full', '0:partial', '1:partial']));
  });

  it('reassemble the ledger byte for byte: the bundles hold exactly the entries GET /api/v1/ledger serves', async () => {
    const entries = await entriesFromBundles();
    expect(entries).toHaveLength(size);
    for (let from = 1; from <= size; from += 100) {
      const page = await get(`/api/v1/ledger?from=${from}&limit=100`);
      const served = entries.slice(from - 1, from + 99).map((entry) => Buffer.from(entry).toString('utf8'));
      // The page splices the stored entries into its JSON: its tail is them, joined, byte for byte.
      expect(page.bytes.toString('utf8').endsWith(`"entries":[${served.join(',')}]}`), `from ${from}`).toBe(true);
      expect(json(page).entries.map((entry: { seq: number }) => entry.seq)).toEqual(served.map((_, i) => from + i));
    }
  });

  it("hold in their level-0 tiles the leaf hashes of those bytes, and the engine's own leaf hashes", async () => {
    const entries = await entriesFromBundles();
    const leaf_hashes: Hash[] = [];
    for (const level_0 of treeTiles(size).filter(({ level }) => level === 0))
      leaf_hashes.push(...tileHashes(await tile(level_0)));
    expect(leaf_hashes).toHaveLength(size);
    leaf_hashes.forEach((leaf_hash, i) => {
      expect(hashesEqual(leaf_hash, hasher.leaf(entries[i]!)), `leaf ${i}`).toBe(true);
      expect(hashesEqual(leaf_hash, society.engine.log_tree.leafHash(i)), `leaf ${i}`).toBe(true);
    });
  });

  it("give the tree's root: folded from the level-0 tiles, and each level-1 hash the root of a full level-0 tile", async () => {
    const range = new CompactRange(hasher);
    const full_tile_roots: Hash[] = [];
    for (const level_0 of treeTiles(size).filter(({ level }) => level === 0)) {
      const hashes = tileHashes(await tile(level_0));
      for (const hash of hashes) range.append(hash);
      if (level_0.width === 256) {
        const tile_range = new CompactRange(hasher);
        for (const hash of hashes) tile_range.append(hash);
        full_tile_roots.push(tile_range.root());
      }
    }
    const root = range.root();
    expect(hashesEqual(root, society.engine.log_tree.root(size))).toBe(true);
    const proof = json(await get(`/log/proof/inclusion?index=0&size=${size}`));
    expect(hashesEqual(fromBase64(proof.root_hash), root)).toBe(true);
    const level_1 = tileHashes(await tile({ level: 1, index: 0, width: full_tile_roots.length }));
    expect(level_1.map((hash, i) => hashesEqual(hash, full_tile_roots[i]!))).toEqual(full_tile_roots.map(() => true));
  });

  it('serves a partial tile of any width the committed tree holds, each the prefix of the wider one', async () => {
    const full = await tile({ level: 0, index: 0, width: 256 });
    for (const width of [1, 17, 255])
      expect((await tile({ level: 0, index: 0, width })).equals(full.subarray(0, width * 32))).toBe(true);
    const bundle = decodeBundle(await tile({ level: ENTRIES_LEVEL, index: 1, width: 256 }));
    const partial = decodeBundle(await tile({ level: ENTRIES_LEVEL, index: 1, width: 3 }));
    expect(partial).toEqual(bundle.slice(0, 3));
  });
});

describe('caching', () => {
  it('answers a full tile as immutable with a strong ETag of its bytes, and 304 with no body for that ETag', async () => {
    for (const path of ['/log/tile/0/000', '/log/tile/entries/001']) {
      const first = await get(path);
      expect(first.headers.get('content-type')).toBe('application/octet-stream');
      expect(first.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      const etag = first.headers.get('etag')!;
      expect(etag).toBe(`"${createHash('sha256').update(first.bytes).digest('hex')}"`);
      const again = await get(path, { 'If-None-Match': etag });
      expect([again.status, again.bytes.length]).toEqual([304, 0]);
      expect(again.headers.get('etag')).toBe(etag);
      expect((await get(path, { 'If-None-Match': `"${'0'.repeat(64)}", ${etag}` })).status).toBe(304);
      expect((await get(path, { 'If-None-Match': `"${'0'.repeat(64)}"` })).status).toBe(200);
      // fetch() sends Cache-Control: no-cache with every conditional request: the origin still answers 304.
      expect((await get(path, { 'If-None-Match': `W/${etag}`, 'Cache-Control': 'no-cache' })).status).toBe(304);
      expect((await get(path, { 'If-None-Match': '*' })).status).toBe(304);
    }
  });

  it('answers a partial tile with a cache of one second', async () => {
    const partial = treeTiles(size).find(({ level, width }) => level === 0 && width < 256)!;
    for (const path of [`/log/${tilePath(partial)}`, `/log/${tilePath(treeBundles(size).at(-1)!)}`]) {
      const fetched = await get(path);
      expect([fetched.status, fetched.headers.get('cache-control')], path).toEqual([200, 'public, max-age=1']);
      expect(fetched.headers.get('etag')).toMatch(/^"[0-9a-f]{64}"$/);
    }
  });

  it('answers a proof as immutable JSON: the proof for given sizes never changes', async () => {
    const proof = await get(`/log/proof/inclusion?index=3&size=${size}`);
    expect(proof.headers.get('content-type')).toMatch(/^application\/json/);
    expect(proof.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
  });
});

describe('proofs', () => {
  /** The root of the tree of its first n leaves, folded here from the leaf hashes the level-0 tiles give. */
  let roots: Hash[];
  beforeAll(async () => {
    const range = new CompactRange(hasher);
    roots = [range.root()];
    for (const level_0 of treeTiles(size).filter(({ level }) => level === 0)) {
      for (const hash of tileHashes(await tile(level_0))) {
        range.append(hash);
        roots.push(range.root());
      }
    }
  });

  it('serves for every leaf an inclusion proof that verifies against the root of the committed tree', async () => {
    for (let index = 0; index < size; index++) {
      const proof = json(await get(`/log/proof/inclusion?index=${index}&size=${size}`));
      expect(Object.keys(proof)).toEqual(['leaf_index', 'tree_size', 'root_hash', 'inclusion_proof']);
      expect([proof.leaf_index, proof.tree_size]).toEqual([index, size]);
      const leaf = society.engine.log_tree.leafHash(index);
      const path = proof.inclusion_proof.map(fromBase64);
      expect(verifyInclusion(hasher, index, size, leaf, path, roots[size]!), `leaf ${index}`).toBe(true);
    }
  });

  it('serves inclusion proofs into smaller trees too, each with that tree’s root', async () => {
    for (const tree_size of [1, 2, 255, 256, 257, 300, 512]) {
      for (const index of [0, Math.floor(tree_size / 2), tree_size - 1]) {
        const proof = json(await get(`/log/proof/inclusion?index=${index}&size=${tree_size}`));
        expect(hashesEqual(fromBase64(proof.root_hash), roots[tree_size]!)).toBe(true);
        const leaf = society.engine.log_tree.leafHash(index);
        const path = proof.inclusion_proof.map(fromBase64);
        expect(verifyInclusion(hasher, index, tree_size, leaf, path, roots[tree_size]!)).toBe(true);
      }
    }
  });

  it('serves consistency proofs that verify between the roots of any two sizes', async () => {
    const sizes = [0, 1, 2, 3, 7, 8, 255, 256, 257, 511, 512, 513, size - 1, size];
    for (const old_size of sizes) {
      for (const new_size of sizes.filter((n) => n >= old_size)) {
        const answer = json(await get(`/log/proof/consistency?old=${old_size}&new=${new_size}`));
        expect(Object.keys(answer)).toEqual(['old_size', 'new_size', 'consistency_proof']);
        expect([answer.old_size, answer.new_size]).toEqual([old_size, new_size]);
        const proof = answer.consistency_proof.map(fromBase64);
        const verified = verifyConsistency(hasher, old_size, new_size, roots[old_size]!, roots[new_size]!, proof);
        expect(verified, `${old_size} -> ${new_size}`).toBe(true);
      }
    }
  });
});

describe('refusals', () => {
  it('answers 404 NOT_FOUND for a tile the committed tree does not hold all of', async () => {
    const last_bundle = treeBundles(size).at(-1)!;
    const beyond: TileId[] = [
      { level: 0, index: Math.floor(size / 256) + 1, width: 256 },
      { level: 0, index: Math.floor(size / 256), width: 256 },
      { level: 0, index: Math.floor(size / 256), width: (size % 256) + 1 },
      { level: 1, index: 0, width: 256 },
      { level: 1, index: 0, width: Math.floor(size / 256) + 1 },
      { level: 2, index: 0, width: 1 },
      { level: 63, index: 0, width: 1 },
      { ...last_bundle, width: last_bundle.width + 1 },
      { ...last_bundle, index: last_bundle.index + 1, width: 1 },
    ];
    for (const path of beyond.map((t) => `/log/${tilePath(t)}`)) {
      const fetched = await get(path);
      expect([fetched.status, json(fetched).error], path).toEqual([404, 'NOT_FOUND']);
    }
  });

  it('answers 404 for a path that is not the canonical path of a tile, as tlog-tiles clients expect', async () => {
    const malformed = [
      '/log/tile/00/000',
      '/log/tile/64/000',
      '/log/tile/0/x000/000',
      '/log/tile/0/0',
      '/log/tile/0/000.p/0',
      '/log/tile/0/000.p/256',
      '/log/tile/0/000.p/01',
      '/log/tile/0/000.p',
      '/log/tile/entries/000.p/',
      '/log/tile/entries',
      '/log/tile/0/%30%30%30',
      '/log/tile/0/000.p/1/extra',
      '/log/tile/-1/000',
    ];
    for (const path of malformed) {
      const fetched = await get(path);
      expect([fetched.status, json(fetched).error], path).toEqual([404, 'NOT_FOUND']);
    }
  });

  it('answers 422 naming the value at fault for a malformed or impossible proof query', async () => {
    const cases: [string, string[]][] = [
      ['/log/proof/inclusion?index=abc&size=5', ['query', 'index']],
      ['/log/proof/inclusion?index=1', ['query', 'size']],
      ['/log/proof/inclusion?index=-1&size=5', ['query', 'index']],
      ['/log/proof/inclusion?index=1e3&size=5000', ['query', 'index']],
      ['/log/proof/inclusion?index=0&size=0', ['query', 'size']],
      ['/log/proof/inclusion?index=5&size=5', ['query', 'index']],
      [`/log/proof/inclusion?index=0&size=${size + 1}`, ['query', 'size']],
      ['/log/proof/inclusion?index=0&size=99999999999999999999', ['query', 'size']],
      ['/log/proof/consistency?old=3&new=2', ['query', 'old']],
      [`/log/proof/consistency?old=1&new=${size + 1}`, ['query', 'new']],
      ['/log/proof/consistency?old=1', ['query', 'new']],
      ['/log/proof/consistency?old=x&new=2', ['query', 'old']],
    ];
    for (const [path, loc] of cases) {
      const fetched = await get(path);
      expect(fetched.status, path).toBe(422);
      expect(
        json(fetched).detail.map((item: { loc: string[] }) => item.loc),
        path,
      ).toContainEqual(loc);
    }
    const beyond = json(await get(`/log/proof/inclusion?index=0&size=${size + 1}`)).detail[0];
    expect(beyond).toMatchObject({ type: 'less_than_equal', input: size + 1, ctx: { limit: size } });
  });
});

/** The count of tile requests the metrics hold for a method and status. */
async function tileRequestsCounted(base: string, method: string, status: number): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text
    .split('\n')
    .find((row) =>
      row.startsWith(`tessera_http_request_seconds_count{route="/log/tile/*",method="${method}",status="${status}"}`),
    );
  return line ? Number(line.split(' ').at(-1)) : 0;
}

describe('the tile fast path in front of Koa', () => {
  let fast: { url: string; close(): Promise<void> };
  let general: { url: string; close(): Promise<void> };
  beforeAll(async () => {
    fast = await serve(fastOnly(society.paths));
    general = await serve(society.paths.general);
  });
  afterAll(async () => {
    await fast?.close();
    await general?.close();
  });

  it('answers tiles and bundles, full and partial, 200 and 304, GET and HEAD, exactly as the Koa route does', async () => {
    const partial_0 = treeTiles(size).find(({ level, width }) => level === 0 && width < 256)!;
    const partial_1 = treeTiles(size).find(({ level }) => level === 1)!;
    const paths = [
      '/log/tile/0/000',
      '/log/tile/0/001',
      `/log/${tilePath(partial_0)}`,
      '/log/tile/0/000.p/17',
      `/log/${tilePath(partial_1)}`,
      '/log/tile/entries/000',
      `/log/${tilePath(treeBundles(size).at(-1)!)}`,
      '/log/tile/entries/001.p/3',
      '/log/tile/0/000?unrelated=1',
    ];
    for (const path of paths) {
      const etag = (await fetch(`${general.url}${path}`)).headers.get('etag')!;
      const requests: [string, RequestInit][] = [
        ['GET', {}],
        ['HEAD', { method: 'HEAD' }],
        ['304', { headers: { 'If-None-Match': etag } }],
        [
          '304, list and no-cache',
          { headers: { 'If-None-Match': `"${'0'.repeat(64)}", W/${etag}`, 'Cache-Control': 'no-cache' } },
        ],
        ['HEAD 304', { method: 'HEAD', headers: { 'If-None-Match': '*' } }],
        ['other ETag', { headers: { 'If-None-Match': `"${'0'.repeat(64)}"` } }],
      ];
      for (const [name, init] of requests) {
        const by_fast = await answerOf(`${fast.url}${path}`, init);
        expect(by_fast.status, `${path} ${name}`).not.toBe(DECLINED);
        expect(by_fast, `${path} ${name}`).toEqual(await answerOf(`${general.url}${path}`, init));
        expect(by_fast, `${path} ${name}`).toEqual(await answerOf(`${society.url}${path}`, init));
      }
    }
    const head = await answerOf(`${fast.url}/log/tile/0/000`, { method: 'HEAD' });
    expect([head.bytes, new Map(head.headers).get('content-length')]).toEqual(['', String(256 * 32)]);
    const full = await answerOf(`${fast.url}/log/tile/0/000`);
    expect(Object.fromEntries(full.headers)).toMatchObject({
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'content-type': 'application/octet-stream',
      'cache-control': 'public, max-age=31536000, immutable',
    });
  });

  it('leaves to Koa what is not a tile there, and the listener then answers 404 as the Koa route does', async () => {
    const last_bundle = treeBundles(size).at(-1)!;
    const not_there = [
      `/log/${tilePath({ level: 0, index: Math.floor(size / 256) + 1, width: 256 })}`,
      `/log/${tilePath({ ...last_bundle, width: last_bundle.width + 1 })}`,
      '/log/tile/0/000.p/256',
      '/log/tile/0/%30%30%30',
      '/log/tile/0/000/',
      '/log/tile/',
    ];
    for (const path of not_there) {
      expect((await fetch(`${fast.url}${path}`)).status, path).toBe(DECLINED);
      const by_koa = await answerOf(`${general.url}${path}`);
      expect([by_koa.status, JSON.parse(Buffer.from(by_koa.bytes, 'base64').toString()).error], path).toEqual([
        404,
        'NOT_FOUND',
      ]);
      expect(await answerOf(`${society.url}${path}`), path).toEqual(by_koa);
    }
    for (const [path, init] of [
      ['/log/tile/0/000', { method: 'POST' }],
      ['/log/proof/inclusion?index=0&size=1', {}],
      ['/api/v1/status', {}],
    ] as const)
      expect((await fetch(`${fast.url}${path}`, init)).status, path).toBe(DECLINED);
  });

  it('counts each answer in the request metrics under the tile route, its method and status', async () => {
    const etag = (await fetch(`${general.url}/log/tile/0/000`)).headers.get('etag')!;
    const before = {
      get: await tileRequestsCounted(society.url, 'GET', 200),
      head: await tileRequestsCounted(society.url, 'HEAD', 200),
      not_modified: await tileRequestsCounted(society.url, 'GET', 304),
    };
    for (let i = 0; i < 3; i++) await (await fetch(`${fast.url}/log/tile/entries/000`)).arrayBuffer();
    await fetch(`${fast.url}/log/tile/0/000`, { method: 'HEAD' });
    await fetch(`${fast.url}/log/tile/0/000`, { headers: { 'If-None-Match': etag } });
    await fetch(`${fast.url}/log/tile/0/000`, { headers: { 'If-None-Match': etag } });
    expect({
      get: await tileRequestsCounted(society.url, 'GET', 200),
      head: await tileRequestsCounted(society.url, 'HEAD', 200),
      not_modified: await tileRequestsCounted(society.url, 'GET', 304),
    }).toEqual({ get: before.get + 3, head: before.head + 1, not_modified: before.not_modified + 2 });
  });
});

describe('the read limit', () => {
  it('applies to tiles and proofs like to any public read: 429 RATE_LIMITED past the burst', async () => {
    const limited = await startTestSociety({ config: { read_limits: { reads_per_second: 1, burst_reads: 3 } } });
    try {
      const statuses: number[] = [];
      for (const path of ['/log/tile/entries/000.p/1', '/log/proof/consistency?old=0&new=1', '/log/tile/0/000.p/1'])
        statuses.push((await fetch(`${limited.url}${path}`)).status);
      const refused = await fetch(`${limited.url}/log/tile/0/000.p/1`);
      expect([...statuses, refused.status]).toEqual([200, 200, 200, 429]);
      expect(((await refused.json()) as { error: string }).error).toBe('RATE_LIMITED');
      expect(limited.bugs).toEqual([]);
    } finally {
      await limited.destroy();
    }
  });

  it('is one allowance for the fast path and Koa: mixing them gets a client no more reads, and the 429 is the same', async () => {
    const limited = await startTestSociety({ config: { read_limits: { reads_per_second: 1, burst_reads: 4 } } });
    const fast = await serve(fastOnly(limited.paths));
    const general = await serve(limited.paths.general);
    try {
      const reads = [
        `${fast.url}/log/tile/0/000.p/1`,
        `${general.url}/log/proof/consistency?old=0&new=1`,
        `${fast.url}/log/tile/entries/000.p/1`,
        `${limited.url}/api/v1/ledger?from=1&limit=1`,
      ];
      const statuses: number[] = [];
      for (const url of reads) statuses.push((await fetch(url)).status);
      expect(statuses).toEqual([200, 200, 200, 200]);
      // The allowance is spent: the fast path declines, and Koa refuses, on either listener.
      expect((await fetch(`${fast.url}/log/tile/0/000.p/1`)).status).toBe(DECLINED);
      const by_koa = await answerOf(`${general.url}/log/tile/0/000.p/1`);
      expect(by_koa.status).toBe(429);
      expect(new Map(by_koa.headers).get('retry-after')).toBe('1');
      expect(JSON.parse(Buffer.from(by_koa.bytes, 'base64').toString()).error).toBe('RATE_LIMITED');
      expect(await answerOf(`${limited.url}/log/tile/0/000.p/1`)).toEqual(by_koa);
      expect((await fetch(`${limited.url}/log/proof/consistency?old=0&new=1`)).status).toBe(429);
      // A second's refill is one read, whichever path takes it.
      limited.advance(1000);
      expect((await fetch(`${fast.url}/log/tile/0/000.p/1`)).status).toBe(200);
      expect((await fetch(`${limited.url}/log/proof/consistency?old=0&new=1`)).status).toBe(429);
      expect(limited.bugs).toEqual([]);
    } finally {
      await fast.close();
      await general.close();
      await limited.destroy();
    }
  });
});
