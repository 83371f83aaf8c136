import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApiDocument } from '../api/openapi.js';
import {
  ContractError,
  checkAnswer,
  checkWatchedAnswer,
  contractOf,
  takeContractFailures,
  unwatchAnswers,
  watchAnswers,
} from './helpers/contract.js';
import { startChildServer, type ChildServer } from './helpers/child_server.js';
import { tempDir } from './helpers/society.js';

/**
 * The contract check's newer reaches (issue 31): the headers an answer carries, the
 * exact media type of a JSON answer, and the answers of servers run as child processes.
 * Each check is shown failing on an answer that breaks it.
 */

const JSON_TYPE = 'application/json; charset=utf-8';
const AGENT = 'ag_0123456789abcdef';
const RATE_LIMITED = { error: 'RATE_LIMITED', message: 'Too many requests', retry_after_seconds: 2 };

/** A deep copy of a document, to declare what the service does not do. */
function copyOf(document: unknown): any {
  return JSON.parse(JSON.stringify(document));
}

describe('headers checked against the contract', () => {
  it('accepts a declared header whose value matches its schema, read as a number where the schema wants one', () => {
    const headers = new Headers({ 'Retry-After': '2', 'content-type': JSON_TYPE });
    expect(() => checkAnswer('GET', '/api/v1/ledger', 429, JSON_TYPE, RATE_LIMITED, headers)).not.toThrow();
  });

  it('rejects a declared header whose value does not match its schema, naming it', () => {
    const headers = new Headers({ 'Retry-After': 'soon' });
    expect(() => checkAnswer('GET', '/api/v1/ledger', 429, JSON_TYPE, RATE_LIMITED, headers)).toThrow(ContractError);
    expect(() => checkAnswer('GET', '/api/v1/ledger', 429, JSON_TYPE, RATE_LIMITED, headers)).toThrow(
      /ledger_read\) answering 429[\s\S]*header Retry-After: "soon"/,
    );
    // Zero seconds is below the declared minimum of 1; node:http's header object is read the same way.
    expect(() => checkAnswer('GET', '/api/v1/ledger', 429, JSON_TYPE, RATE_LIMITED, { 'retry-after': '0' })).toThrow(
      /Retry-After/,
    );
  });

  it('rejects an answer missing a header declared required, and lets one not required be absent', () => {
    const contract = contractOf(openApiDocument());
    // Every 429 says when to try again; the limiter's standing is declared on a refusal, not promised.
    expect(() => contract.check('GET', '/api/v1/ledger', 429, JSON_TYPE, RATE_LIMITED, new Headers())).toThrow(
      /required header Retry-After is missing/,
    );
    expect(() =>
      contract.check('GET', '/api/v1/ledger', 429, JSON_TYPE, RATE_LIMITED, { 'retry-after': '2' }),
    ).not.toThrow();
  });

  it("holds every answer of a limited route, refusals included, to the limit headers' schemas", () => {
    const standing = {
      'retry-after': '1',
      'ratelimit-limit': '30',
      'ratelimit-remaining': '0',
      'ratelimit-reset': '1',
    };
    const check = (headers: Record<string, string>) => () =>
      checkAnswer('GET', '/api/v1/nonce', 429, JSON_TYPE, RATE_LIMITED, headers);
    expect(check(standing)).not.toThrow();
    expect(check({ ...standing, 'ratelimit-remaining': '-1' })).toThrow(/header RateLimit-Remaining: "-1"/);
  });

  it('holds a 503 to a Retry-After, when it sends one, and a signed 429 to its next nonce', () => {
    const busy = { error: 'QUEUE_FULL', message: 'm', retry_after_seconds: 1 };
    const act = (status: number, body: unknown, headers: Record<string, string>) => () =>
      checkAnswer('POST', '/api/v1/act', status, JSON_TYPE, body, headers);
    expect(act(503, busy, { 'retry-after': '1' })).not.toThrow();
    expect(act(503, busy, { 'retry-after': 'later' })).toThrow(/header Retry-After: "later"/);
    const next = { 'retry-after': '5', 'x-next-nonce': 'n', 'x-next-nonce-expires-at': 'soon' };
    expect(act(429, RATE_LIMITED, next)).toThrow(/header X-Next-Nonce-Expires-At: "soon"/);
  });

  it("holds a nonce's answer to the Cache-Control: no-store the document requires of it", () => {
    const nonce = { agent: AGENT, nonce: 'n', expires_at: '2026-11-27T10:00:00.000+00:00' };
    const check = (headers: Record<string, string>) => () =>
      checkAnswer('GET', '/api/v1/nonce', 200, JSON_TYPE, nonce, headers);
    expect(check({ 'cache-control': 'no-store' })).not.toThrow();
    expect(check({})).toThrow(/required header Cache-Control is missing/);
    expect(check({ 'cache-control': 'max-age=60' })).toThrow(/header Cache-Control: "max-age=60"/);
  });

  it('checks the headers of an answer that is not JSON', () => {
    const headers = { 'content-type': 'text/html; charset=utf-8' };
    // A catalogue read's 200 always says where the client stands under the read limit.
    expect(() =>
      contractOf(openApiDocument()).checkUnreadBody('GET', '/api/v1/ledger', 200, 'text/html', headers),
    ).toThrow(/required header RateLimit-Remaining is missing/);
  });

  it('rejects an answer that is not JSON whose media type the response does not declare', () => {
    const contract = contractOf(openApiDocument());
    const text = 'text/plain; charset=utf-8';
    expect(() => contract.checkUnreadBody('GET', '/charter.md', 200, text, {})).not.toThrow();
    expect(() => contract.checkUnreadBody('GET', '/charter', 200, text, {})).toThrow(
      /a text\/plain body where the document declares text\/html/,
    );
    // A bodiless 304 has no declared body to hold it to.
    expect(() => contract.checkUnreadBody('GET', '/log/tile/0/000', 304, null, {})).not.toThrow();
  });

  it("matches a path to its most literal template: a motion's Markdown is not its page", () => {
    const contract = contractOf(openApiDocument());
    const motion = '/motions/mo_0123456789abcdef';
    expect(() => contract.checkUnreadBody('GET', `${motion}.md`, 200, 'text/plain', {})).not.toThrow();
    expect(() => contract.checkUnreadBody('GET', motion, 200, 'text/plain', {})).toThrow(/declares text\/html/);
  });

  it('rejects a JSON answer whose media type the response does not declare, even another JSON one', () => {
    const problem = 'application/problem+json';
    expect(() => checkAnswer('GET', '/api/v1/ledger', 429, problem, RATE_LIMITED, new Headers())).toThrow(
      /a application\/problem\+json body where the document declares application\/json/,
    );
  });
});

describe('answers of a server run as a child process', () => {
  let data_dir: string;
  let server: ChildServer;
  beforeAll(async () => {
    data_dir = tempDir();
    server = await startChildServer({ DATA_DIR: data_dir });
  });
  afterAll(async () => {
    await server?.kill('SIGKILL');
    rmSync(data_dir, { recursive: true, force: true });
  });

  it('are checked against the document the child serves, and pass it', async () => {
    const answer = await fetch(`${server.url}/api/v1/nonce?agent=${AGENT}`);
    expect(answer.status).toBe(200);
    expect(takeContractFailures()).toEqual([]);
  });

  it('reject the fetch that got an answer breaking the document, body or headers, and fail the test', async () => {
    const served = copyOf(await (await fetch(`${server.url}/api/v1/openapi.json`)).json());
    const nonce = served.paths['/api/v1/nonce'].get.responses['200'];
    nonce.content['application/json'].schema.required.push('not_sent');
    nonce.headers['Cache-Control'].schema = { type: 'string', enum: ['public'] };
    nonce.headers['X-Not-Sent'] = { required: true, schema: { type: 'string' } };
    // The child's origin now held to a document that asks for what it does not send.
    watchAnswers(server.url, served);
    try {
      await expect(fetch(`${server.url}/api/v1/nonce?agent=${AGENT}`)).rejects.toThrow(ContractError);
      const failures = takeContractFailures();
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatch(
        /header Cache-Control: "no-store"[\s\S]*required header X-Not-Sent is missing[\s\S]*not_sent/,
      );

      // A helper that reads answers without fetch (test/helpers/http_from.ts) is held to the same document.
      const url = new URL(`${server.url}/api/v1/nonce?agent=${AGENT}`);
      const text = JSON.stringify({ agent: AGENT, nonce: 'n', expires_at: new Date().toISOString() });
      const headers = { 'cache-control': 'public', 'x-not-sent': 'here' };
      expect(() => checkWatchedAnswer(url, 'GET', 200, JSON_TYPE, text, headers)).toThrow(/not_sent/);
      expect(takeContractFailures()).toHaveLength(1);
    } finally {
      unwatchAnswers(server.url);
    }
  });

  it('are no longer checked once the child has ended', async () => {
    await server.kill('SIGKILL');
    const url = new URL(`${server.url}/api/v1/nonce`);
    expect(() => checkWatchedAnswer(url, 'GET', 200, JSON_TYPE, '{}', {})).not.toThrow();
  });
});
