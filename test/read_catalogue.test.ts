import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { jsonSchemaOf, READ_TOOLS } from '../api/read_tools.js';
import { SERVED_READS } from '../api/served_reads.js';
import { routeOf } from '../client/tools.js';
import type { ReadDefinition } from '../engine/read.js';
import { READ_CATALOGUE } from '../engine/read_catalogue.js';
import { CHUNK_SIZE } from '../engine/world/geometry.js';
import { founderClient, startTestSociety, type TestSociety } from './helpers/society.js';
import { request } from './helpers/signed.js';
import { join, refusal, type Member } from './helpers/world.js';

let society: TestSociety;
let url: string;
/** Per parameter name, values that name something real, and values that name nothing. */
let samples: Record<string, unknown[]>;
let mcp: Client;

const propose = (member: Member, title: string, changes: unknown[]) =>
  member.client.act<{ motion_id: string }>('motion_propose', { title, body: `Why: ${title}`, changes });

/** A society with something in every read: charter versions, a Dispatch, open motions, a P0 refusal, messages. */
beforeAll(async () => {
  society = await startTestSociety({ genesis: { world_seed: 'world-tests', params: { voting_window_seconds: 60 } } });
  url = society.url;
  const founder = await founderClient(society);
  const members: Member[] = [];
  for (const handle of ['ada', 'bob', 'cyd']) members.push(await join(society, handle));
  const [ada, bob, cyd] = members as [Member, Member, Member];
  for (const member of members) await member.client.act('bulletin_post', { title: 'Hello', body: `I am ${member.id}` });
  society.advance(1000);
  const amend = { op: 'amend_charter', article_id: 'D4', title: 'Roads', text: 'For all.' };
  const amended = await propose(ada, 'Roads', [amend]);
  await founder.signed('POST', '/enactment/resolve', { motion_id: amended.result.motion_id, reason: 'housekeeping' });
  await founder.signed('POST', '/enactment/dispatch', {});
  const open = await propose(bob, 'Forests', []);
  await bob.client.act('motion_open', { motion_id: open.result.motion_id });
  await cyd.client.act('vote_cast', { motion_id: open.result.motion_id, choice: 'aye' });
  await refusal(propose(cyd, 'Touch A1', [{ op: 'amend_charter', article_id: 'A1', title: 'x', text: 'y' }]));
  for (const body of ['one', 'two **bold**', 'three https://example.org']) {
    await ada.client.act('aether_send', { body, scope: 'auto', route: 'global' });
  }
  await society.engine.drain();
  const spot = society.engine.state.world.agents.get(ada.id)!;
  samples = {
    motion_id: [amended.result.motion_id, open.result.motion_id, 'M-9999-ffff'],
    agent: [ada.id, cyd.id, 'ag_0000000000000000'],
    version: [1, 2, 3],
    x: [spot.x, 0, 2047, 2048],
    y: [spot.y, 0, -1],
    chunk_x: [Math.floor(spot.x / CHUNK_SIZE), 0, 32],
    chunk_y: [Math.floor(spot.y / CHUNK_SIZE), 31, -1],
  };
  mcp = new Client({ name: 'read-catalogue-test', version: '1.0.0' });
  await mcp.connect(new StreamableHTTPClientTransport(new URL(`${url}/mcp`)));
}, 60_000);
afterAll(async () => {
  await mcp?.close();
  await society?.destroy();
});
afterEach(() => expect(society.bugs.splice(0)).toEqual([]));

/** A read's path with its path parameters filled by the first (real) sample of each. */
const filled = (path: string) => path.replace(/\{(\w+)\}/g, (_, name: string) => String(samples[name]![0]));

/**
 * A tool's answer as the route's: a result is the body; a refusal is the tool's
 * {error, message, http_status, ...details} with http_status taken out, and a 422's
 * VALIDATION_FAILED wrapper taken off its detail list (the route answers {detail}).
 */
async function callTool(name: string, args: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
  const result = await mcp.callTool({ name, arguments: args });
  const answer = JSON.parse((result.content as { text: string }[])[0]!.text);
  if (!result.isError) return { status: 200, body: answer };
  const { http_status, ...body } = answer;
  if (http_status === 422) {
    expect(body.error).toBe('VALIDATION_FAILED');
    return { status: 422, body: { detail: body.detail } };
  }
  return { status: http_status, body };
}

/** The JSON answer as its declared schema reads it: equal to the answer only if it has no undeclared field. */
function asDeclared(read: ReadDefinition, body: unknown): unknown {
  if (read.response.kind !== 'json') throw new Error(`${read.name} answers bytes`);
  return read.response.schema.parse(body);
}

describe('the read catalogue', () => {
  it('declares each read once, by a unique snake_case name and a unique path', () => {
    const names = READ_CATALOGUE.map((read) => read.name);
    expect(new Set(names).size).toBe(names.length);
    for (const name of names) expect(name).toMatch(/^[a-z][a-z0-9_]*$/);
    const paths = READ_CATALOGUE.flatMap((read) => [read.path, ...read.aliases]);
    expect(new Set(paths).size).toBe(paths.length);
    expect(SERVED_READS.map((read) => read.name)).toEqual(names);
  });

  it('mounts every read at its path and aliases; each JSON answer is exactly what its schema declares', async () => {
    for (const read of SERVED_READS) {
      for (const path of [read.path, ...read.aliases]) {
        const answer = await request(url, filled(path));
        expect([path, answer.status], JSON.stringify(answer.body).slice(0, 300)).toEqual([path, 200]);
        if (read.response.kind === 'bytes') {
          expect(answer.headers.get('content-type')).toBe(read.response.media_type);
          expect(answer.headers.get('etag')).toMatch(/^"[0-9a-f]{64}"$/);
          continue;
        }
        expect(asDeclared(read, answer.body), path).toEqual(answer.body);
      }
    }
  });

  it('answers 422 naming the place of a parameter that is not an integer, never a guess', async () => {
    const cases: [string, (string | number)[]][] = [
      ['/api/v1/world/tile/1.5/2', ['path', 'x']],
      ['/charter/vx.json', ['path', 'version']],
      ['/api/v1/ledger?limit=1e3', ['query', 'limit']],
      ['/api/v1/chronicle?before=%207', ['query', 'before']],
    ];
    for (const [path, loc] of cases) {
      const answer = await request(url, path);
      const item = expect.objectContaining({ loc, type: 'string_pattern_mismatch', msg: 'must be an integer' });
      expect([path, answer.status, (answer.body as any).detail]).toEqual([path, 422, [item]]);
    }
    const both = await request(url, '/api/v1/ledger?from=0&limit=x');
    expect((both.body as any).detail.map((item: any) => item.loc)).toEqual([
      ['query', 'limit'],
      ['query', 'from'],
    ]);
  });

  it('answers each read tool at /mcp as its route answers, refusals included, whatever the arguments', async () => {
    for (const read of READ_TOOLS) {
      await fc.assert(
        fc.asyncProperty(argsArbitrary(read), async (args) => {
          const http = await request(url, routeOf(read.path, args));
          const called = await callTool(read.name, args);
          const routed = { read: read.name, args, status: http.status, body: http.body };
          expect({ read: read.name, args, ...called }).toEqual(routed);
          if (http.status === 200) expect(asDeclared(read, http.body)).toEqual(http.body);
          else expect(read.refusals).toContain((http.body as { error: string }).error);
        }),
        { numRuns: 12 },
      );
    }
  });
});

describe("the service's MCP endpoint", () => {
  it("lists exactly the catalogue's read tools, titled in agent-rules.json, refusing as the routes do", async () => {
    type Rules = { read_tools: { name: string; title: string }[] };
    const rules = (await request(url, '/.well-known/agent-rules.json')).body as Rules;
    const titled = READ_TOOLS.map((read) => [read.name, read.title]);
    expect(rules.read_tools.map((tool) => [tool.name, tool.title])).toEqual(titled);
    const listed = (await mcp.listTools()).tools.map((tool) => tool.name);
    expect(listed.sort()).toEqual(READ_TOOLS.map((read) => read.name).sort());
    const law = ['charter_read', 'charter_version_read', 'prohibitions_list', 'founder_conduct', 'enactment_queue'];
    for (const name of [...law, 'dispatch_list', 'bulletin_list', 'chronicle_list']) expect(listed).toContain(name);
    const unknown = await callTool('motion_read', { motion_id: 'M-9999-ffff' });
    const route = await request(url, '/api/v1/motions/M-9999-ffff');
    expect(unknown).toEqual({ status: 404, body: route.body });
    expect((unknown.body as { error: string }).error).toBe('UNKNOWN_MOTION');
    const invalid = await callTool('dispatch_list', { limit: 0, extra: 1 });
    const locs = (invalid.body as { detail: { loc: unknown[] }[] }).detail.map((item) => item.loc);
    expect([invalid.status, locs]).toEqual([
      422,
      [
        ['arguments', 'limit'],
        ['arguments', 'extra'],
      ],
    ]);
    const older = await callTool('charter_version_read', { version: 1 });
    expect([older.status, (older.body as { version: number }).version]).toEqual([200, 1]);
  });
});

describe('the read limit', () => {
  it('counts each POST /mcp as a read of its client, as the routes its tools answer for', async () => {
    const read_limits = { reads_per_second: 1, burst_reads: 2 };
    const limited = await startTestSociety({ genesis: { world_seed: 'world-tests' }, config: { read_limits } });
    try {
      const call = { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'society_status', arguments: {} } };
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const post = () => request(limited.url, '/mcp', { method: 'POST', headers, body: JSON.stringify(call) });
      for (let i = 0; i < 2; i++) expect((await post()).status).toBe(200);
      const refused = await post();
      expect([refused.status, (refused.body as { error: string }).error]).toEqual([429, 'RATE_LIMITED']);
    } finally {
      await limited.destroy();
    }
  });
});

type PropertySchema = { type?: string; enum?: unknown[]; minimum?: number; maximum?: number };

/** Arguments for a read tool: path parameters from the samples, query parameters within their limits or left out. */
function argsArbitrary(read: ReadDefinition): fc.Arbitrary<Record<string, unknown>> {
  const schema = jsonSchemaOf(read.args) as { properties?: Record<string, PropertySchema>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const min = Math.max(property.minimum ?? 0, -5);
    const max = Math.min(property.maximum ?? 2100, 2100);
    const drawn = property.enum ? fc.constantFrom(...property.enum) : fc.integer({ min, max });
    const value = samples[name] ? fc.constantFrom(...samples[name]!) : drawn;
    return [name, required.has(name) ? value : fc.option(value, { nil: undefined })] as const;
  });
  const defined = (args: Record<string, unknown>) =>
    Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined));
  return fc.record(Object.fromEntries(fields)).map(defined);
}
