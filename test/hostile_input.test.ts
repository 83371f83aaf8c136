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

const post_routes = ['/api/v1/register', '/api/v1/keys/backup', '/api/v1/keys/rotate', '/api/v1/act'];
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
      { numRuns: 150 },
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
      { numRuns: 200 },
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
