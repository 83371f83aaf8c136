import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { brotliCompressSync, deflateRawSync, deflateSync, gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, parseKeyFile, type AgentKey } from '../client/keys.js';
import { TesseraClient } from '../client/sdk.js';
import { CATALOGUE } from '../engine/catalogue.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { rawSigned, request } from './helpers/signed.js';
import { WEBHOOK_SECRET, malformedEvents, sendSignedWebhook } from './helpers/webhooks.js';

let society: TestSociety;
let member: AgentKey;
let founder: AgentKey;
beforeAll(async () => {
  society = await startTestSociety();
  member = await generateKey();
  await new TesseraClient(society.url, member).register('fuzz-target');
  founder = await parseKeyFile(JSON.parse(readFileSync(join(society.data_dir, 'founder.key.json'), 'utf8')));
});
afterAll(async () => society.destroy());

const post_routes = [
  '/api/v1/register',
  '/api/v1/keys/backup',
  '/api/v1/keys/rotate',
  '/api/v1/act',
  '/api/v1/pom/challenge',
  '/enactment/apply',
  '/enactment/resolve',
  '/enactment/dispatch',
  '/api/v1/grants',
  '/api/v1/membership/checkout',
  '/api/v1/membership/portal',
  '/api/v1/stripe/webhook',
  '/treasury/observer/recover',
  '/treasury/observer/checkout',
  '/mcp',
];
const json_value = fc.jsonValue({ maxDepth: 4 });
/** Names every plain object inherits: as ids they must find nothing. */
const property_names = [
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'valueOf',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
];

describe('hostile input never produces a 5xx and never changes state', () => {
  it('survives arbitrary JSON bodies, signed and unsigned, on every signed route', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...post_routes), json_value, fc.boolean(), async (path, body, signed) => {
        const head = society.store.ledgerHead().seq;
        const response = signed
          ? await rawSigned(society.url, { path, body, key: member })
          : await request(society.url, path, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify(body),
            });
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        expect(society.store.ledgerHead().seq).toBe(head);
      }),
      { numRuns: 600 },
    );
  });

  it('survives arbitrary bytes, headers and query strings', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...post_routes, '/api/v1/ledger', '/api/v1/nonce', '/api/v1/status', '/'),
        fc.string({ maxLength: 200 }),
        fc.string({ maxLength: 40 }),
        fc.string({ unit: 'binary-ascii', maxLength: 100 }),
        async (path, raw_body, query, header) => {
          const printable = header.replace(/[^\x20-\x7e]/g, '');
          const method =
            path.startsWith('/api/v1/ledger') ||
            path.startsWith('/api/v1/nonce') ||
            path === '/api/v1/status' ||
            path === '/'
              ? 'GET'
              : 'POST';
          const response = await fetch(
            `${society.url}${path}?${encodeURIComponent(query)}=${encodeURIComponent(raw_body.slice(0, 20))}&from=${encodeURIComponent(query)}`,
            {
              method,
              headers: {
                'content-type': 'application/json',
                'x-agent-id': printable,
                'x-nonce': printable,
                'x-signature': printable,
              },
              ...(method === 'POST' ? { body: raw_body } : {}),
            },
          );
          await response.arrayBuffer();
          expect(response.status).toBeLessThan(500);
        },
      ),
      { numRuns: 600 },
    );
    expect(society.bugs).toEqual([]);
  });

  it('survives world and governance acts with arbitrary payloads and coordinates all over (and off) the plane', async () => {
    const spot = society.engine.state.world.agents.get(member.agent_id)!;
    const coordinate = fc.oneof(
      fc.integer({ min: -3, max: 3 }).map((d) => spot.x + d),
      fc.integer({ min: -5, max: 2100 }),
      fc.constantFrom(0, 2047, 2048, -1),
    );
    const cell = fc.record({
      x: coordinate,
      y: coordinate,
      z: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 255 })),
    });
    const governance = fc.oneof(
      fc.record({
        title: fc.string({ maxLength: 30 }),
        body: fc.string({ maxLength: 30 }),
        changes: fc.array(
          fc.record({
            op: fc.constantFrom('set_param', 'amend_charter', 'enable_module', 'amend_axiom'),
            name: fc.constantFrom('block_reach', 'nope'),
            value: fc.oneof(fc.integer(), fc.boolean()),
          }),
          { maxLength: 2 },
        ),
      }),
      fc.record({
        motion_id: fc.oneof(fc.constant('M-0001-abcd'), fc.string({ maxLength: 12 })),
        choice: fc.constantFrom('aye', 'nay', 'maybe'),
      }),
      fc.record({
        body: fc.string({ maxLength: 40 }),
        scope: fc.constantFrom('auto', 'near'),
        route: fc.constantFrom('global', 'relay', 'moon'),
      }),
      fc.record({
        from_relay_id: fc.integer({ min: -1, max: 3 }),
        to_relay_id: fc.integer({ min: -1, max: 3 }),
        relay_id: fc.integer({ min: 0, max: 2 }),
      }),
    );
    const payload = fc.oneof(
      cell,
      cell.map((c) => ({ ...c, block_id: 1 + (c.x & 7) })),
      fc.record({
        chunk_x: fc.oneof(fc.constant(null), fc.integer({ min: -2, max: 40 })),
        chunk_y: fc.oneof(fc.constant(null), fc.integer({ min: -2, max: 40 })),
      }),
      fc.record({
        path: fc.array(fc.constantFrom('n', 'ne', 'e', 'se', 's', 'sw', 'w', 'nw'), { minLength: 1, maxLength: 16 }),
      }),
      fc.record({
        to: fc.constant(member.agent_id),
        resource: fc.constantFrom('dirt', 'relic'),
        amount: fc.integer({ min: 1, max: 5 }),
      }),
      governance,
      fc.jsonValue({ maxDepth: 2 }),
    );
    // Every act a member performs through /api/v1/act, as the catalogue declares them.
    const acts = CATALOGUE.filter((act) => act.via_act && act.gates.membership).map((act) => act.name);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...acts), payload, async (act, body) => {
        const response = await rawSigned(society.url, {
          path: '/api/v1/act',
          body: { act, challenge_id: null, puzzle_solution: null, payload: body },
          key: member,
        });
        expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
      }),
      { numRuns: 300 },
    );
    expect(society.bugs).toEqual([]);
  });

  it('refuses deeply nested bodies cleanly', async () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const response = await request(society.url, '/api/v1/act', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: `{"act":"key_backup_register","payload":{"backup_pubkey":${deep}}}`,
    });
    expect(response.status).toBe(422);
    expect(response.body.detail[0]).toMatchObject({ loc: ['body'], type: 'too_deep' });
  });

  it('refuses every Content-Encoding but identity, corrupt or valid, on every route that takes a body, and changes nothing', async () => {
    const body_routes = society.routes.filter((route) => route.method === 'POST');
    expect(
      body_routes
        .filter((route) => route.raw_body)
        .map((route) => route.pattern)
        .sort(),
    ).toEqual(['/api/v1/stripe/webhook', '/treasury/observer/recover']);
    const json = Buffer.from(
      JSON.stringify({ act: 'world_look', challenge_id: null, puzzle_solution: null, payload: { radius: 1 } }),
    );
    const encodings = {
      gzip: gzipSync,
      deflate: deflateSync,
      br: brotliCompressSync,
      'x-gzip': gzipSync,
      compress: deflateRawSync,
      'gzip, identity': gzipSync,
      BR: brotliCompressSync,
      '%%garbage%%': (bytes: Buffer) => bytes,
    };
    const bodies = fc.oneof(
      fc.constant('valid'),
      fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
      fc.constant(Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0xff, 0xff])),
      fc.constant(Buffer.alloc(0)),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...body_routes),
        fc.constantFrom(...Object.keys(encodings), 'identity'),
        bodies,
        fc.boolean(),
        async (route, encoding, body, signed) => {
          const head = society.store.ledgerHead().seq;
          const encode = encodings[encoding as keyof typeof encodings] ?? ((bytes: Buffer) => bytes);
          const bytes = body === 'valid' ? encode(json) : body;
          const headers = { 'content-type': 'application/json', 'content-encoding': encoding };
          const path = route.pattern;
          const answer = signed
            ? await rawSigned(society.url, { path, body: bytes.toString('latin1'), key: member, headers })
            : await request(society.url, path, { method: 'POST', headers, body: new Uint8Array(bytes) });
          expect(answer.status, `${path} ${encoding}`).toBeLessThan(500);
          // With payments off the webhook answers PAYMENTS_OFF before it reads a byte.
          if (encoding !== 'identity')
            expect([path, encoding, answer.status]).toEqual([
              path,
              encoding,
              path === '/api/v1/stripe/webhook' ? 409 : 415,
            ]);
          expect(society.store.ledgerHead().seq).toBe(head);
        },
      ),
      { numRuns: 400 },
    );
    expect(society.bugs).toEqual([]);
  });

  const property_ids = fc.constantFrom(
    ...property_names,
    ...property_names.map((name) => `${name}.md`),
    ...property_names.map((name) => `${name}.json`),
  );

  it('answers every GET route with property names in every path parameter without a 5xx', async () => {
    const routes = society.routes.filter((route) => route.method === 'GET' && route.pattern.includes(':'));
    expect(routes.length).toBeGreaterThanOrEqual(12);
    const fill = (pattern: string, names: string[]) =>
      pattern.replace(/:(\w+)/g, () => encodeURIComponent(names.shift() ?? 'constructor'));
    for (const route of routes) {
      for (const name of property_names) {
        const answer = await request(society.url, fill(route.pattern, [name, name, name]));
        expect([route.pattern, name, answer.status]).toEqual([route.pattern, name, expect.any(Number)]);
        expect(answer.status, `${route.pattern} with ${name}`).toBeLessThan(500);
      }
    }
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        fc.array(property_ids, { minLength: 3, maxLength: 3 }),
        async (route, names) => {
          const answer = await request(society.url, fill(route.pattern, names));
          expect(answer.status, `${route.pattern} with ${names.join(', ')}`).toBeLessThan(500);
        },
      ),
      { numRuns: 300 },
    );
    expect(society.bugs).toEqual([]);
  });

  it('refuses property names in every id-bearing act payload without a 5xx', async () => {
    const member_acts = (name: string) => [
      { act: 'vote_cast', payload: { motion_id: name, choice: 'aye' } },
      { act: 'motion_cosponsor', payload: { motion_id: name } },
      { act: 'motion_open', payload: { motion_id: name } },
      { act: 'world_give', payload: { to: name, resource: 'dirt', amount: 1 } },
      { act: 'aether_link', payload: { from_relay_id: name, to_relay_id: name } },
      { act: 'world_look', payload: { [name]: 1 } },
    ];
    const changes = (name: string) => [
      { op: 'set_param', name, value: 1 },
      { op: 'enable_module', module_id: name, description: '' },
      { op: 'retire_module', module_id: name },
      { op: 'remove_prohibition', prohibition_id: name },
      { op: 'add_prohibition', prohibition_id: name, text: 'probe' },
      { op: 'amend_charter', article_id: name, title: 'probe', text: 'probe' },
    ];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...property_names), fc.nat(), async (name, pick) => {
        const acts = member_acts(name);
        const sent = acts[pick % acts.length]!;
        const answer = await rawSigned(society.url, {
          path: '/api/v1/act',
          body: { ...sent, challenge_id: null, puzzle_solution: null },
          key: member,
        });
        expect(answer.status, `${sent.act} with ${name}`).toBeLessThan(500);
        const with_challenge = await rawSigned(society.url, {
          path: '/api/v1/act',
          body: {
            act: 'motion_propose',
            challenge_id: name,
            puzzle_solution: name,
            payload: { title: 'probe', body: '', changes: [] },
          },
          key: member,
        });
        expect([with_challenge.status, with_challenge.body.error]).toEqual([403, 'POM_FAILED']);
        const founder_path = pick % 2 === 0 ? '/enactment/apply' : '/enactment/resolve';
        const founder_answer = await rawSigned(society.url, {
          path: founder_path,
          body: { motion_id: name, ...(founder_path === '/enactment/resolve' ? { reason: 'probe' } : {}) },
          key: founder,
        });
        expect(founder_answer.status, `${founder_path} with ${name}`).toBeLessThan(500);
        const intent = await rawSigned(society.url, {
          path: '/api/v1/pom/challenge',
          body: { intent: name },
          key: member,
        });
        expect([intent.status, intent.body.error]).toEqual([404, 'UNKNOWN_ACT']);
      }),
      { numRuns: 120 },
    );
    // A filing needs Proof of Machine; each probe is solved for real, with engine time moved past
    // the rolling day so that neither the filing limit nor the outstanding challenges stop the next.
    const client = new TesseraClient(society.url, member);
    for (const name of property_names) {
      for (const change of changes(name)) {
        society.advance(86_400_000);
        const filed = await client
          .act('motion_propose', { title: `probe ${change.op}`, body: '', changes: [change] })
          .then(
            () => 200,
            (error: { status?: number }) => error.status ?? 0,
          );
        expect([name, change.op, filed < 500 && filed > 0]).toEqual([name, change.op, true]);
      }
    }
    expect(society.bugs).toEqual([]);
  });
});

describe('signed webhook bodies of any shape', () => {
  let paid: TestSociety;
  beforeAll(async () => {
    // The processor's API is never called by the webhook; its address only has to be valid.
    paid = await startTestSociety({
      config: {
        payments: {
          secret_key: 'sk_test_fuzz',
          webhook_secret: WEBHOOK_SECRET,
          api_base: 'http://127.0.0.1:9',
          public_url: 'http://society.test',
        },
      },
    });
  });
  afterAll(async () => paid.destroy());

  it('refuses each malformed signed event with 400 WEBHOOK_EVENT_INVALID and never records one, whatever its fields hold', async () => {
    const agent = await generateKey();
    for (const [name, body] of Object.entries(malformedEvents(agent.agent_id))) {
      const answer = await sendSignedWebhook(paid.url, JSON.stringify(body));
      expect([name, answer.status, answer.body.error]).toEqual([name, 400, 'WEBHOOK_EVENT_INVALID']);
    }
    const anything = fc.oneof(
      fc.jsonValue({ maxDepth: 2 }),
      fc.constantFrom(...property_names),
      fc.string({ maxLength: 300 }),
    );
    const event = fc.record(
      {
        id: fc.oneof(fc.constant('evt_fuzz'), fc.stringMatching(/^evt_[A-Za-z0-9_]{1,300}$/), anything),
        type: fc.oneof(
          fc.constantFrom(
            'checkout.session.completed',
            'invoice.paid',
            'invoice.payment_failed',
            'customer.subscription.updated',
            'customer.subscription.deleted',
            'charge.refunded',
          ),
          anything,
        ),
        livemode: fc.oneof(fc.constant(false), anything),
        data: fc.oneof(
          fc.record({
            object: fc.oneof(
              fc.dictionary(
                fc.constantFrom(
                  'customer',
                  'subscription',
                  'metadata',
                  'amount_total',
                  'amount_paid',
                  'status',
                  'client_reference_id',
                  'id',
                  ...property_names,
                ),
                anything,
              ),
              anything,
            ),
          }),
          anything,
        ),
      },
      { requiredKeys: [] },
    );
    await fc.assert(
      fc.asyncProperty(fc.oneof(event, anything), async (body) => {
        const head = paid.store.ledgerHead().seq;
        const answer = await sendSignedWebhook(paid.url, JSON.stringify(body) ?? 'undefined');
        expect(answer.status, JSON.stringify(body)).toBeLessThan(500);
        await paid.engine.drain();
        if (answer.status !== 200)
          expect([answer.status, answer.body.error, paid.store.ledgerHead().seq]).toEqual([
            400,
            'WEBHOOK_EVENT_INVALID',
            head,
          ]);
      }),
      { numRuns: 400 },
    );
    for (const id of Object.keys(paid.engine.state.payments.fulfilled)) expect(id).toMatch(/^evt_[A-Za-z0-9_]{1,251}$/);
    expect(paid.bugs).toEqual([]);
  });
});
