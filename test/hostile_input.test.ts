import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, type AgentKey } from '../client/keys.js';
import { TesseraClient } from '../client/sdk.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { rawSigned, request } from './helpers/signed.js';

let society: TestSociety;
let member: AgentKey;
beforeAll(async () => {
  society = await startTestSociety();
  member = await generateKey();
  await new TesseraClient(society.url, member).register('fuzz-target');
});
afterAll(async () => society.destroy());

const post_routes = ['/api/v1/register', '/api/v1/keys/backup', '/api/v1/keys/rotate', '/api/v1/act', '/api/v1/pom/challenge', '/enactment/apply', '/enactment/resolve', '/enactment/dispatch', '/api/v1/grants', '/api/v1/membership/checkout', '/api/v1/membership/portal', '/api/v1/stripe/webhook', '/treasury/observer/recover', '/treasury/observer/checkout', '/mcp'];
const json_value = fc.jsonValue({ maxDepth: 4 });

describe('hostile input never produces a 5xx and never changes state', () => {
  it('survives arbitrary JSON bodies, signed and unsigned, on every signed route', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...post_routes), json_value, fc.boolean(), async (path, body, signed) => {
        const head = society.store.ledgerHead().seq;
        const response = signed ? await rawSigned(society.url, { path, body, key: member }) : await request(society.url, path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
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
          const method = path.startsWith('/api/v1/ledger') || path.startsWith('/api/v1/nonce') || path === '/api/v1/status' || path === '/' ? 'GET' : 'POST';
          const response = await fetch(`${society.url}${path}?${encodeURIComponent(query)}=${encodeURIComponent(raw_body.slice(0, 20))}&from=${encodeURIComponent(query)}`, {
            method,
            headers: { 'content-type': 'application/json', 'x-agent-id': printable, 'x-nonce': printable, 'x-signature': printable },
            ...(method === 'POST' ? { body: raw_body } : {}),
          });
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
    const coordinate = fc.oneof(fc.integer({ min: -3, max: 3 }).map((d) => spot.x + d), fc.integer({ min: -5, max: 2100 }), fc.constantFrom(0, 2047, 2048, -1));
    const cell = fc.record({ x: coordinate, y: coordinate, z: fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 255 })) });
    const governance = fc.oneof(
      fc.record({ title: fc.string({ maxLength: 30 }), body: fc.string({ maxLength: 30 }), changes: fc.array(fc.record({ op: fc.constantFrom('set_param', 'amend_charter', 'enable_module', 'amend_axiom'), name: fc.constantFrom('block_reach', 'nope'), value: fc.oneof(fc.integer(), fc.boolean()) }), { maxLength: 2 }) }),
      fc.record({ motion_id: fc.oneof(fc.constant('M-0001-abcd'), fc.string({ maxLength: 12 })), choice: fc.constantFrom('aye', 'nay', 'maybe') }),
      fc.record({ body: fc.string({ maxLength: 40 }), scope: fc.constantFrom('auto', 'near'), route: fc.constantFrom('global', 'relay', 'moon') }),
      fc.record({ from_relay_id: fc.integer({ min: -1, max: 3 }), to_relay_id: fc.integer({ min: -1, max: 3 }), relay_id: fc.integer({ min: 0, max: 2 }) }),
    );
    const payload = fc.oneof(
      cell,
      cell.map((c) => ({ ...c, block_id: 1 + (c.x & 7) })),
      fc.record({ chunk_x: fc.oneof(fc.constant(null), fc.integer({ min: -2, max: 40 })), chunk_y: fc.oneof(fc.constant(null), fc.integer({ min: -2, max: 40 })) }),
      fc.record({ path: fc.array(fc.constantFrom('n', 'ne', 'e', 'se', 's', 'sw', 'w', 'nw'), { minLength: 1, maxLength: 16 }) }),
      fc.record({ to: fc.constant(member.agent_id), resource: fc.constantFrom('dirt', 'relic'), amount: fc.integer({ min: 1, max: 5 }) }),
      governance,
      fc.jsonValue({ maxDepth: 2 }),
    );
    const acts = ['world_look', 'world_map', 'world_column', 'world_move', 'world_dig', 'world_gather', 'world_place_block', 'world_break_block', 'world_give', 'world_build_road', 'motion_propose', 'motion_open', 'motion_cosponsor', 'vote_cast', 'bulletin_post', 'aether_send', 'aether_build_mast', 'aether_link', 'aether_build_hub'];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...acts), payload, async (act, body) => {
        const response = await rawSigned(society.url, { path: '/api/v1/act', body: { act, challenge_id: null, puzzle_solution: null, payload: body }, key: member });
        expect(response.status, JSON.stringify(response.body)).toBeLessThan(500);
      }),
      { numRuns: 300 },
    );
    expect(society.bugs).toEqual([]);
  });

  it('refuses deeply nested bodies cleanly', async () => {
    const deep = '['.repeat(5000) + ']'.repeat(5000);
    const response = await request(society.url, '/api/v1/act', { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"act":"key_backup_register","payload":{"backup_pubkey":${deep}}}` });
    expect(response.status).toBe(422);
    expect(response.body.detail[0]).toMatchObject({ loc: ['body'], type: 'too_deep' });
  });
});
