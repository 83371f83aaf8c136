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
let members: Member[];
/** Per parameter name, values that name something real, and one that names nothing. */
let samples: Record<string, unknown[]>;
let mcp: Client;

beforeAll(async () => {
  society = await startTestSociety({ genesis: { world_seed: 'world-tests', params: { voting_window_seconds: 60 } } });
  url = society.url;
  const founder = await founderClient(society);
  members = [];
  for (const handle of ['ada', 'bob', 'cyd']) members.push(await join(society, handle));
  const [ada, bob, cyd] = members as [Member, Member, Member];
  for (const member of members) await member.client.act('bulletin_post', { title: 'Hello', body: `I am ${member.id}.` });
  society.advance(1000);
  const amend = [{ op: 'amend_charter', article_id: 'D4', title: 'Roads', text: 'Roads are for everyone.' }];
  const amended = await ada.client.act<{ motion_id: string }>('motion_propose', { title: 'Roads', body: 'Why not', changes: amend });
  await founder.signed('POST', '/enactment/resolve', { motion_id: amended.result.motion_id, reason: 'housekeeping' });
  await founder.signed('POST', '/enactment/dispatch', {});
  const open = await bob.client.act<{ motion_id: string }>('motion_propose', { title: 'Forests', body: 'More', changes: [] });
  await bob.client.act('motion_open', { motion_id: open.result.motion_id });
  await cyd.client.act('vote_cast', { motion_id: open.result.motion_id, choice: 'aye' });
  await refusal(cyd.client.act('motion_propose', { title: 'Touch A1', body: '', changes: [{ op: 'amend_charter', article_id: 'A1', title: 'x', text: 'y' }] }));
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

/** A tool's answer as the route's: a result is the body, a refusal is the body with the HTTP status beside it. */
async function callTool(name: string, args: Record<string, unknown>): Promise<{ status: number; body: unknown }> {
  const result = await mcp.callTool({ name, arguments: args });
  const answer = JSON.parse((result.content as { text: string }[])[0]!.text);
  if (!result.isError) return { status: 200, body: answer };
  const { status, ...body } = answer;
  return { status, body };
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

  it('mounts every read at its path and its aliases, and each JSON answer is exactly what its schema declares', async () => {
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
      expect([path, answer.status, (answer.body as any).detail]).toEqual([path, 422, [expect.objectContaining({ loc, type: 'string_pattern_mismatch' })]]);
    }
    const both = await request(url, '/api/v1/ledger?from=0&limit=x');
    expect((both.body as any).detail.map((item: any) => item.loc)).toEqual([['query', 'limit'], ['query', 'from']]);
  });

  it('answers each read tool at /mcp as its route answers, refusals included, whatever the arguments', async () => {
    for (const read of READ_TOOLS) {
      await fc.assert(
        fc.asyncProperty(argsArbitrary(read), async (args) => {
          const http = await request(url, routeOf(read.path, args));
          const called = await callTool(read.name, args);
          expect({ read: read.name, args, ...called }).toEqual({ read: read.name, args, status: http.status, body: http.body });
          if (http.status === 200) expect(asDeclared(read, http.body)).toEqual(http.body);
          else expect(read.refusals).toContain((http.body as { error: string }).error);
        }),
        { numRuns: 12 },
      );
    }
  });
});

describe('the service\'s MCP endpoint', () => {
  it('lists exactly the catalogue\'s read tools, each titled in agent-rules.json, and refuses as the routes do', async () => {
    const rules = (await request(url, '/.well-known/agent-rules.json')).body as { read_tools: { name: string; title: string }[] };
    expect(rules.read_tools.map((tool) => [tool.name, tool.title])).toEqual(READ_TOOLS.map((read) => [read.name, read.title]));
    const listed = (await mcp.listTools()).tools.map((tool) => tool.name);
    expect(listed.sort()).toEqual(READ_TOOLS.map((read) => read.name).sort());
    const law = ['charter_read', 'charter_version_read', 'prohibitions_list', 'founder_conduct', 'dispatch_list', 'bulletin_list', 'chronicle_list', 'enactment_queue'];
    for (const name of law) expect(listed).toContain(name);
    const unknown = await callTool('motion_read', { motion_id: 'M-9999-ffff' });
    const route = await request(url, '/api/v1/motions/M-9999-ffff');
    expect(unknown).toEqual({ status: 404, body: route.body });
    expect((unknown.body as { error: string }).error).toBe('UNKNOWN_MOTION');
    const invalid = await callTool('dispatch_list', { limit: 0, extra: 1 });
    expect([invalid.status, (invalid.body as any).detail.map((item: any) => item.loc)]).toEqual([422, [['arguments', 'limit'], ['arguments', 'extra']]]);
    const older = await callTool('charter_version_read', { version: 1 });
    expect([older.status, (older.body as { version: number }).version]).toEqual([200, 1]);
  });
});

/** Arguments for a read tool: its path parameters from the samples, its query parameters anywhere in their limits or left out. */
function argsArbitrary(read: ReadDefinition): fc.Arbitrary<Record<string, unknown>> {
  const schema = jsonSchemaOf(read.args) as { properties?: Record<string, { type?: string; enum?: unknown[]; minimum?: number; maximum?: number }>; required?: string[] };
  const required = new Set(schema.required ?? []);
  const fields = Object.entries(schema.properties ?? {}).map(([name, property]) => {
    const value = samples[name]
      ? fc.constantFrom(...samples[name]!)
      : property.enum
        ? fc.constantFrom(...property.enum)
        : fc.integer({ min: Math.max(property.minimum ?? 0, -5), max: Math.min(property.maximum ?? 2100, 2100) });
    return [name, required.has(name) ? value : fc.option(value, { nil: undefined })] as const;
  });
  return fc.record(Object.fromEntries(fields)).map((args) => Object.fromEntries(Object.entries(args).filter(([, value]) => value !== undefined)));
}
