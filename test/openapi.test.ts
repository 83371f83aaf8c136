import { readdirSync, readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DECLARED_ROUTES, openApiDocument } from '../api/openapi.js';
import { ROUTE_ONLY_CODES, SYSTEM_ACT_CODES } from '../api/openapi/act_refusals.js';
import { REFUSALS, type RefusalCode } from '../engine/refusals.js';
import { z } from 'zod';
import { defineRead } from '../engine/read.js';
import { SchemaComponents } from '../api/openapi/json_schema.js';
import { readPaths } from '../api/openapi/reads.js';
import { CATALOGUE } from '../engine/catalogue.js';
import { READ_CATALOGUE } from '../engine/read_catalogue.js';
import type { RouteDoc } from '../api/route_docs.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { request } from './helpers/signed.js';

type Listing = { method: string; pattern: string; raw_body: boolean }[];
type Operation = Record<string, any>;
type Document = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, unknown> } };

const METHODS = ['get', 'post', 'put', 'delete', 'patch'];

/** find-my-way's `:name` (with an optional regexp) as OpenAPI's `{name}`. */
function openApiPath(pattern: string): string {
  return pattern.replace(/:(\w+)(\([^)]*\))?/g, '{$1}');
}

/** The paths one router pattern serves beyond its own form (`/motions/:motion_id` serves `/motions/{motion_id}.md`). */
function aliasesByPattern(declared: readonly RouteDoc[]): Map<string, string[]> {
  const aliases = new Map<string, string[]>();
  for (const doc of declared) {
    if (!doc.mounted) continue;
    const key = `${doc.method} ${doc.mounted}`;
    aliases.set(key, [...(aliases.get(key) ?? []), doc.path]);
  }
  return aliases;
}

/**
 * Mounted routes the document leaves out, as "METHOD pattern". A pattern is documented
 * when one of its forms is, and every path declared as served by it is.
 */
function undocumentedRoutes(document: Document, listing: Listing, declared: readonly RouteDoc[] = DECLARED_ROUTES) {
  const aliases = aliasesByPattern(declared);
  const has = (path: string, method: string) => document.paths[path]?.[method.toLowerCase()] !== undefined;
  return listing
    .filter(({ method, pattern }) => {
      const extra = aliases.get(`${method} ${pattern}`) ?? [];
      const some_form = [openApiPath(pattern), ...extra].some((path) => has(path, method));
      return !some_form || !extra.every((path) => has(path, method));
    })
    .map(({ method, pattern }) => `${method} ${pattern}`);
}

/** Operations of the document no mounted route serves, as "METHOD path". */
function unmountedOperations(document: Document, listing: Listing, declared: readonly RouteDoc[] = DECLARED_ROUTES) {
  const mounted = new Set(listing.map(({ method, pattern }) => `${method} ${openApiPath(pattern)}`));
  const served_as = new Map(
    declared
      .filter((doc) => doc.mounted)
      .map((doc) => [`${doc.method} ${doc.path}`, `${doc.method} ${openApiPath(doc.mounted!)}`]),
  );
  return operations(document)
    .map(({ method, path }) => `${method.toUpperCase()} ${path}`)
    .filter((key) => !mounted.has(served_as.get(key) ?? key));
}

function operations(document: Document): { path: string; method: string; operation: Operation }[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, operation]) => ({ path, method, operation })),
  );
}

/** The shape of a path, its parameter names aside: `/motions/{id}` and `/motions/{motion_id}` are one route. */
const shape = (path: string) => path.replace(/\{[^}]+\}/g, '{}');

/**
 * Every route the specification's endpoint section names: the rows of its tables
 * (`| GET | /charter.json, /charter.md | ...`) and the paths listed for the human and
 * Markdown pages.
 */
function specificationRoutes(text: string): string[] {
  const routes = new Set<string>();
  for (const line of text.split('\n')) {
    const row = /^\|\s*(GET|POST|PUT|DELETE|PATCH)\s*\|([^|]+)\|/.exec(line);
    if (!row) continue;
    for (const item of row[2]!.split(/,| and /)) {
      const path = item.trim().replace(/^\{base_url\}/, '');
      if (path.startsWith('/')) routes.add(`${row[1]} ${path}`);
    }
  }
  const pages = text.slice(text.indexOf('### Human pages'), text.indexOf('Response body shapes'));
  for (const [, path] of pages.matchAll(/(?:^|[\s,(])(\/[A-Za-z0-9_.{}/-]*)/g)) {
    routes.add(`GET ${path!.replace(/[.,]+$/, '')}`);
  }
  return [...routes];
}

/** Every `$ref` in a value. */
function refsIn(value: unknown): string[] {
  if (Array.isArray(value)) return value.flatMap(refsIn);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, inner]) => {
    return key === '$ref' && typeof inner === 'string' ? [inner] : refsIn(inner);
  });
}

/** JSON answers that are open by nature, each with its reason in the document (x-open-answer). */
const OPEN_ANSWERS = ['GET /api/v1/openapi.json'];

/** Path and query parameters that count things or name places: integers everywhere they appear. */
const INTEGER_PARAMETERS = new Set(['x', 'y', 'chunk_x', 'chunk_y', 'version', 'seq']);
for (const name of ['limit', 'before', 'before_id', 'since_id', 'from']) INTEGER_PARAMETERS.add(name);

describe('the OpenAPI document', () => {
  let society: TestSociety;
  let document: Document;

  beforeAll(async () => {
    society = await startTestSociety({ genesis: { world_seed: 'world-tests' } });
    document = (await request(society.url, '/api/v1/openapi.json')).body;
  });
  afterAll(async () => society.destroy());

  it('is served as generated, and validates as OpenAPI 3.1', async () => {
    expect(document).toEqual(JSON.parse(JSON.stringify(openApiDocument('http://society.test'))));
    expect(document).toMatchObject({ openapi: '3.1.0', info: { version: '0.1.0' } });
    const result = await new Validator().validate(document as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('every $ref resolves, and every operation has its own id', () => {
    const resolve = (ref: string) =>
      ref
        .slice(2)
        .split('/')
        .reduce<any>((node, key) => node?.[key], document);
    const refs = new Set(refsIn(document));
    expect(refs.size).toBeGreaterThan(30);
    for (const ref of refs) {
      expect(ref, ref).toMatch(/^#\/components\/(schemas|headers)\//);
      expect(resolve(ref), ref).toBeDefined();
    }
    const ids = operations(document).map(({ operation }) => operation.operationId);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
  });

  it('documents every route the app mounts, with its method, and nothing it does not mount', () => {
    expect(society.routes.length).toBeGreaterThan(80);
    expect(undocumentedRoutes(document, society.routes)).toEqual([]);
    expect(unmountedOperations(document, society.routes)).toEqual([]);
  });

  it('names a mounted route the document leaves out, and a documented one nobody mounts', () => {
    const listing: Listing = [
      ...society.routes,
      { method: 'GET', pattern: '/api/v1/secret/:id', raw_body: false },
      { method: 'POST', pattern: '/api/v1/status', raw_body: false },
    ];
    expect(undocumentedRoutes(document, listing)).toEqual(['GET /api/v1/secret/:id', 'POST /api/v1/status']);
    // A pattern serving a declared alias counts only while the alias is documented.
    const without_twin = { ...document, paths: { ...document.paths } };
    delete without_twin.paths['/motions/{motion_id}.md'];
    expect(undocumentedRoutes(without_twin, society.routes)).toEqual(['GET /motions/:motion_id']);
    const without_tile = society.routes.filter((route) => route.pattern !== '/api/v1/world/tile/:x/:y');
    expect(unmountedOperations(document, without_tile)).toEqual(['GET /api/v1/world/tile/{x}/{y}']);
  });

  it("holds every route of the specification's endpoint tables and page lists", () => {
    const fixture = new URL('./fixtures/specification_endpoints.md', import.meta.url);
    const specified = specificationRoutes(readFileSync(fixture, 'utf8'));
    expect(specified.length).toBeGreaterThan(70);
    const samples = ['GET /charter/v{version}.json', 'GET /motions/{motion_id}.md', 'POST /treasury/observer/recover'];
    samples.push('GET /enactment/queue', 'GET /access/grant/{token}');
    expect(specified).toEqual(expect.arrayContaining(samples));
    const keys = operations(document).map(({ path, method }) => `${method.toUpperCase()} ${path}`);
    const documented = new Set(keys.map(shape));
    expect(specified.filter((route) => !documented.has(shape(route)))).toEqual([]);
  });

  it('declares by hand no route the act or read catalogue already generates', () => {
    const get = (path: string) => `GET ${path}`;
    const generated = new Set([
      ...CATALOGUE.filter((act) => act.rest).map((act) => `POST ${act.rest!.path}`),
      'POST /api/v1/act',
      ...READ_CATALOGUE.flatMap((read) => [read.path, ...read.aliases]).map(get),
    ]);
    expect(DECLARED_ROUTES.map((doc) => `${doc.method} ${doc.path}`).filter((key) => generated.has(key))).toEqual([]);
  });

  it('types integer parameters as integers, declares query parameters, and requires path parameters', () => {
    const parameters = operations(document).flatMap(({ path, operation }) =>
      (operation.parameters ?? []).map((parameter: Operation) => ({ path, ...parameter })),
    );
    for (const parameter of parameters) {
      if (parameter.in === 'path') expect(parameter.required, `${parameter.path} ${parameter.name}`).toBe(true);
      const where = `${parameter.path} ${parameter.name}`;
      expect(parameter.path.includes(`{${parameter.name}}`), where).toBe(parameter.in === 'path');
      if (INTEGER_PARAMETERS.has(parameter.name)) expect(parameter.schema.type, where).toBe('integer');
    }
    const query = (path: string) => {
      const in_query = document.paths[path]!.get!.parameters.filter((p: Operation) => p.in === 'query');
      return Object.fromEntries(in_query.map((p: Operation) => [p.name, p]));
    };
    const limit = { type: 'integer', default: 100, minimum: 1, maximum: 500 };
    expect(query('/api/v1/motions').limit).toMatchObject({ required: false, schema: limit });
    expect(query('/api/v1/motions').status.schema.enum).toEqual(['draft', 'open', 'passed', 'enacted', 'failed']);
    expect(query('/api/v1/nonce').agent).toMatchObject({ required: true, schema: { type: 'string' } });
    expect(Object.keys(query('/api/v1/chronicle')).sort()).toEqual(['before', 'limit']);
    const tile = document.paths['/api/v1/world/tile/{x}/{y}']!.get!;
    expect(tile.parameters.map((p: Operation) => [p.name, p.in, p.schema.type])).toEqual([
      ['x', 'path', 'integer'],
      ['y', 'path', 'integer'],
    ]);
  });

  it('describes every JSON answer with its properties, but for the answers open by nature', () => {
    const bare: string[] = [];
    for (const { path, method, operation } of operations(document)) {
      const key = `${method.toUpperCase()} ${path}`;
      const schema = operation.responses['200']?.content?.['application/json']?.schema;
      if (!schema) continue;
      const typed_values = schema.additionalProperties && schema.additionalProperties !== true;
      const combined = schema.anyOf || schema.oneOf || schema.$ref;
      const described = schema.properties || schema.items || combined || typed_values;
      if (!described && !OPEN_ANSWERS.includes(key)) bare.push(key);
      if (OPEN_ANSWERS.includes(key)) expect(operation['x-open-answer']).toBeTypeOf('string');
    }
    expect(bare).toEqual([]);
    const status = document.paths['/api/v1/status']!.get!.responses['200'].content['application/json'].schema;
    expect(status.properties.ledger).toMatchObject({
      type: 'object',
      properties: { seq: { type: 'integer' }, hash: { type: 'string' } },
      required: ['seq', 'hash'],
      additionalProperties: false,
    });
  });

  it('serves the chunk as application/octet-stream, text pages with their media types', () => {
    const chunk = document.paths['/api/v1/world/chunk/{chunk_x}/{chunk_y}']!.get!;
    expect(Object.keys(chunk.responses['200'].content)).toEqual(['application/octet-stream']);
    const binary = { type: 'string', format: 'binary' };
    expect(chunk.responses['200'].content['application/octet-stream'].schema).toMatchObject(binary);
    const media = (path: string) => Object.keys(document.paths[path]!.get!.responses['200'].content);
    expect([media('/'), media('/society.md'), media('/chronicle.rss'), media('/sitemap.xml')]).toEqual([
      ['text/html'],
      ['text/plain'],
      ['application/rss+xml'],
      ['application/xml'],
    ]);
  });

  it('documents any read the catalogue holds: a bytes read with its media type, 304, integer parameters', () => {
    const chunk = defineRead({
      name: 'test_chunk',
      title: 'A chunk',
      summary: 'Bytes.',
      path: '/test/chunk/{chunk_x}/{chunk_y}',
      args: z.object({ chunk_x: z.int().min(0).max(31), chunk_y: z.int().min(0).max(31), at: z.int().optional() }),
      response: { kind: 'bytes', media_type: 'application/octet-stream', description: 'The chunk' },
      view: () => new Uint8Array(0),
    });
    const components = new SchemaComponents();
    const operation: Operation = readPaths(components, [chunk as never])['/test/chunk/{chunk_x}/{chunk_y}']!.get!;
    expect(Object.keys(operation.responses).sort()).toEqual(['200', '304', '422', '429', '500']);
    expect(operation.responses['200'].content).toEqual({
      'application/octet-stream': { schema: expect.objectContaining({ type: 'string', format: 'binary' }) },
    });
    const parameters = operation.parameters.map((p: Operation) => [p.name, p.in, p.required, p.schema.type]);
    expect(parameters).toEqual([
      ['chunk_x', 'path', true, 'integer'],
      ['chunk_y', 'path', true, 'integer'],
      ['at', 'query', false, 'integer'],
    ]);
  });

  it('signs with one requirement of three headers, documents the next nonce and every refusal by status', () => {
    const act = document.paths['/api/v1/act']!.post!;
    expect(act.security).toEqual([{ agentId: [], nonce: [], signature: [] }]);
    expect(Object.keys(act.responses['200'].headers)).toEqual([
      'X-Next-Nonce',
      'X-Next-Nonce-Expires-At',
      'Idempotent-Replayed',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
    ]);
    const codes = (operation: Operation, status: string) =>
      operation.responses[status].content['application/json'].schema.properties.error.enum;
    expect(codes(act, '401')).toEqual(['SIG_INVALID', 'NONCE_INVALID']);
    expect(codes(act, '403')).toEqual(expect.arrayContaining(['POM_REQUIRED', 'POM_FAILED', 'NOT_AUTHOR']));
    expect(codes(act, '409')).toEqual(expect.arrayContaining(['IMPASSABLE', 'MOTION_CLOSED', 'NO_BACKUP_KEY']));
    expect(codes(act, '402')).toEqual(['MEMBERSHIP_REQUIRED']);
    expect(codes(act, '404')).toEqual(expect.arrayContaining(['UNKNOWN_AGENT', 'UNKNOWN_ACT']));
    const validation = { $ref: '#/components/schemas/ValidationError' };
    expect(act.responses['422'].content['application/json'].schema).toEqual(validation);
    const via_act = CATALOGUE.filter((candidate) => candidate.via_act).map((candidate) => candidate.name);
    expect(Object.keys(act['x-acts'])).toEqual(via_act);
    expect(act.requestBody.content['application/json'].schema.oneOf).toHaveLength(Object.keys(act['x-acts']).length);
    // Each status's schema names exactly the codes of that status.
    for (const { operation } of operations(document)) {
      for (const [status, response] of Object.entries(operation.responses as Record<string, Operation>)) {
        const error = response.content?.['application/json']?.schema?.properties?.error;
        if (!error?.enum) continue;
        const statuses = error.enum.map((code: RefusalCode) => REFUSALS[code].status);
        expect(statuses, status).toEqual(error.enum.map(() => Number(status)));
      }
    }
    const checkout = document.paths['/api/v1/membership/checkout']!.post!;
    expect(checkout.security).toEqual([{ agentId: [], nonce: [], signature: [] }]);
    expect(checkout.description).toContain('empty canonical body');
    expect(checkout.requestBody).toBeUndefined();
    expect(codes(checkout, '409')).toEqual(expect.arrayContaining(['PAYMENTS_OFF', 'ALREADY_MEMBER']));
    expect(document.paths['/api/v1/stripe/webhook']!.post!.security).toEqual([{ stripeSignature: [] }]);
    expect(codes(document.paths['/operator/backup']!.post!, '403')).toEqual(['FOUNDER_ONLY']);
    // A gate is listed only for the acts that have it.
    const registration = document.paths['/api/v1/register']!.post!;
    expect(codes(registration, '403')).not.toContain('POM_REQUIRED');
    expect(codes(registration, '429')).toEqual(['RATE_LIMITED']);
    expect(codes(document.paths['/enactment/apply']!.post!, '403')).toContain('FOUNDER_ONLY');
    expect(codes(document.paths['/api/v1/motions/{motion_id}']!.get!, '404')).toEqual(['UNKNOWN_MOTION']);
    // An unsigned read carries no next nonce; a limited one says where the client stands, /healthz (exempt) nothing.
    expect(Object.keys(document.paths['/api/v1/status']!.get!.responses['200'].headers)).toEqual([
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
    ]);
    expect(document.paths['/healthz']!.get!.responses['200'].headers).toBeUndefined();
  });

  it('lists for acts every code the engine may answer: the codes left out are never named by engine/ acts', () => {
    // Views (engine/reads/) answer reads, not acts: their refusals are documented per read.
    const engine_sources = readdirSync(new URL('../engine/', import.meta.url), { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && file !== 'refusals.ts' && !file.startsWith('reads/'))
      .map((file) => ({ file, text: readFileSync(new URL(`../engine/${file}`, import.meta.url), 'utf8') }));
    const naming = (code: string) => engine_sources.filter(({ text }) => text.includes(`'${code}'`));
    for (const code of ROUTE_ONLY_CODES)
      expect(
        naming(code).map(({ file }) => file),
        code,
      ).toEqual([]);
    for (const code of SYSTEM_ACT_CODES) {
      expect(naming(code).length, code).toBeGreaterThan(0);
      for (const { file, text } of naming(code)) expect(text, `${code} in ${file}`).toContain("signer: 'system'");
    }
  });

  it('answers as it says: the real answers of a few reads have the documented top-level fields', async () => {
    const nonce = '/api/v1/nonce?agent=ag_0123456789abcdef';
    const reads = ['/api/v1/status', '/api/v1/world/params', '/api/v1/motions', '/healthz', '/api/v1/standing', nonce];
    for (const path of reads) {
      const answer = await request(society.url, path);
      expect(answer.status, path).toBe(200);
      const schema = document.paths[path.split('?')[0]!]!.get!.responses['200'].content['application/json'].schema;
      expect(
        Object.keys(answer.body).filter((name) => !(name in schema.properties)),
        path,
      ).toEqual([]);
      expect(
        (schema.required ?? []).filter((name: string) => !(name in answer.body)),
        path,
      ).toEqual([]);
    }
  });
});
