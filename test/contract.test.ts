import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TesseraClient } from '../client/sdk.js';
import { generateKey } from '../client/keys.js';
import { openApiDocument } from '../api/openapi.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { request } from './helpers/signed.js';
import {
  ContractError,
  checkAnswer,
  contractOf,
  takeContractFailures,
  unwatchAnswers,
  watchAnswers,
} from './helpers/contract.js';

/** A deep copy of the document, to hold an older form of it to today's answers. */
function documentCopy(): any {
  return JSON.parse(JSON.stringify(openApiDocument()));
}

const JSON_TYPE = 'application/json; charset=utf-8';

describe('answers checked against the contract', () => {
  let society: TestSociety;
  beforeAll(async () => {
    society = await startTestSociety();
  });
  afterAll(async () => society.destroy());

  it('rejects a body missing a required field, naming the operation, the status and the field', () => {
    const answer = { agent: 'ag_0123456789abcdef', nonce: 'n' };
    expect(() => checkAnswer('GET', '/api/v1/nonce', 200, JSON_TYPE, answer)).toThrow(ContractError);
    expect(() => checkAnswer('GET', '/api/v1/nonce', 200, JSON_TYPE, answer)).toThrow(
      /GET \/api\/v1\/nonce \(get_api_v1_nonce\) answering 200[\s\S]*expires_at/,
    );
    // A status the operation does not declare, and a refusal missing its message.
    expect(() => checkAnswer('GET', '/api/v1/nonce', 418, JSON_TYPE, {})).toThrow(/status 418 is not declared/);
    expect(() => checkAnswer('GET', '/api/v1/nonce', 429, JSON_TYPE, { error: 'RATE_LIMITED' })).toThrow(/message/);
  });

  it('matches a path against its template, and leaves alone what the document does not serve', () => {
    const refusal = { error: 'UNKNOWN_AGENT', message: 'no such agent' };
    expect(() => checkAnswer('GET', '/api/v1/agents/ag_0123456789abcdef', 404, JSON_TYPE, refusal)).not.toThrow();
    expect(() => checkAnswer('GET', '/no/such/route', 404, JSON_TYPE, { anything: true })).not.toThrow();
  });

  it('accepts the real act answer with its receipt, which the document before issue 31 refused', async () => {
    const client = new TesseraClient(society.url, await generateKey());
    await client.register('ada');
    // The hook has already checked this answer on its way in; checked again here by hand.
    const posted = (await client.act('bulletin_post', { title: 'hello', body: 'checked' })) as unknown as object;
    expect(posted).toMatchObject({ act: 'bulletin_post', receipt: { leaf_index: expect.any(Number) } });
    expect(() => checkAnswer('POST', '/api/v1/act', 200, JSON_TYPE, posted)).not.toThrow();

    const before = documentCopy();
    const envelope = before.paths['/api/v1/act'].post.responses['200'].content['application/json'].schema;
    delete envelope.properties.receipt;
    expect(envelope.additionalProperties).toBe(false);
    expect(() => contractOf(before).check('POST', '/api/v1/act', 200, JSON_TYPE, posted)).toThrow(/receipt/);
  });

  it("would have caught the nonce's expires_at written with +00:00 where the document wanted Z", async () => {
    const answer = await request(society.url, `/api/v1/nonce?agent=${'ag_0123456789abcdef'}`);
    expect(answer.body.expires_at).toMatch(/\+00:00$/);
    expect(() => checkAnswer('GET', '/api/v1/nonce', 200, JSON_TYPE, answer.body)).not.toThrow();

    const before = documentCopy();
    const schema = before.paths['/api/v1/nonce'].get.responses['200'].content['application/json'].schema;
    const { $schema: _, ...old_time } = z.toJSONSchema(z.iso.datetime()) as Record<string, unknown>;
    schema.properties.expires_at = old_time;
    expect(() => contractOf(before).check('GET', '/api/v1/nonce', 200, JSON_TYPE, answer.body)).toThrow(/expires_at/);
  });

  it('serves ledger_recipe as the string agent-rules declares', async () => {
    const rules = await request(society.url, '/.well-known/agent-rules.json');
    expect(typeof rules.body.ledger_recipe).toBe('string');
  });

  it('names its server from PUBLIC_URL, and every operation says who may call it (security [] when anyone may)', async () => {
    const served = (await request(society.url, '/api/v1/openapi.json')).body;
    expect(served.servers).toEqual([{ url: 'http://society.test' }]);
    for (const [path, item] of Object.entries(served.paths as Record<string, Record<string, any>>)) {
      for (const [method, operation] of Object.entries(item)) {
        expect(operation.security, `${method} ${path}`).toBeInstanceOf(Array);
      }
    }
    expect(served.paths['/api/v1/nonce'].get.security).toEqual([]);
    expect(served.paths['/api/v1/ledger'].get.security).toEqual([]);
    expect(served.paths['/api/v1/act'].post.security).toEqual([{ agentId: [], nonce: [], signature: [] }]);
  });

  describe('the fetch hook', () => {
    let server: Server;
    let url: string;
    beforeAll(async () => {
      // A service that answers a nonce without its expiry, watched as a society would be.
      server = createServer((_request, response) => {
        response.setHeader('content-type', 'application/json');
        response.end(JSON.stringify({ agent: 'ag_0123456789abcdef', nonce: 'n' }));
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const address = server.address() as { port: number };
      url = `http://127.0.0.1:${address.port}`;
      watchAnswers(url);
    });
    afterAll(async () => {
      unwatchAnswers(url);
      await new Promise((resolve) => server.close(resolve));
    });

    it('rejects the fetch that received an answer breaking the contract, and remembers it for the test', async () => {
      await expect(fetch(`${url}/api/v1/nonce?agent=ag_0123456789abcdef`)).rejects.toThrow(ContractError);
      const failures = takeContractFailures();
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatch(/get_api_v1_nonce[\s\S]*expires_at/);
    });

    it('checks only watched origins: the same answer from elsewhere passes', async () => {
      unwatchAnswers(url);
      try {
        const response = await fetch(`${url}/api/v1/nonce?agent=ag_0123456789abcdef`);
        expect(await response.json()).toEqual({ agent: 'ag_0123456789abcdef', nonce: 'n' });
      } finally {
        watchAnswers(url);
      }
    });

    it('lets the caller read the body it checked', async () => {
      const answer = await request(society.url, '/api/v1/nonce?agent=ag_0123456789abcdef');
      expect(answer.status).toBe(200);
      expect(answer.body.nonce).toEqual(expect.any(String));
    });
  });
});
