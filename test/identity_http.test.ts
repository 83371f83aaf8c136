import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, type AgentKey } from '../client/keys.js';
import { canonicalBody } from '../client/protocol.js';
import { TesseraClient, TesseraError } from '../client/sdk.js';
import { REFUSALS } from '../engine/refusals.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { rawSigned, request } from './helpers/signed.js';

let society: TestSociety;
let url: string;

beforeAll(async () => {
  society = await startTestSociety();
  url = society.url;
});
afterAll(async () => society.destroy());
afterEach(() => expect(society.bugs).toEqual([]));

function registration(key: AgentKey, handle: string, extra: Record<string, unknown> = {}) {
  return { pubkey: key.public_key, handle, declared_runtime: '', backup_pubkey: null, ...extra };
}

async function registered(handle: string, backup?: AgentKey): Promise<{ key: AgentKey; client: TesseraClient }> {
  const key = await generateKey();
  const client = new TesseraClient(url, key);
  await client.register(handle, { backup_pubkey: backup?.public_key ?? null });
  return { key, client };
}

async function refusalOf(promise: Promise<unknown>): Promise<TesseraError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(TesseraError);
  return error as TesseraError;
}

describe('registration', () => {
  it('registers a key under its derived id and puts the signed request on the ledger', async () => {
    const key = await generateKey();
    const response = await rawSigned(url, {
      path: '/api/v1/register',
      body: registration(key, 'alice', { declared_runtime: 'node 20' }),
      key,
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ agent_id: key.agent_id, handle: 'alice', backup_key_registered: false });
    const page = (await request(url, `/api/v1/ledger?from=${response.body.ledger.first_seq}&limit=1`)).body;
    const [entry] = page.entries;
    expect(entry).toMatchObject({
      event_type: 'agent_registered',
      actor: key.agent_id,
      data: { handle: 'alice', pubkey: key.public_key, declared_runtime: 'node 20' },
    });
    expect(entry.proof).toMatchObject({
      method: 'POST',
      path: '/api/v1/register',
      nonce: response.nonce,
      body: canonicalBody(registration(key, 'alice', { declared_runtime: 'node 20' })),
    });
  });

  it('registers a backup key in the same call', async () => {
    const backup = await generateKey();
    const { key } = await registered('with-backup', backup);
    expect(society.engine.state.agents.get(key.agent_id)?.backup_pubkey).toBe(backup.public_key);
  });

  it('refuses a taken handle with 409 HANDLE_TAKEN', async () => {
    await registered('taken-handle');
    const error = await refusalOf(new TesseraClient(url, await generateKey()).register('taken-handle'));
    expect([error.status, error.code]).toEqual([409, 'HANDLE_TAKEN']);
  });

  it("refuses a taken key with 409 KEY_TAKEN, also as someone else's backup key", async () => {
    const { client } = await registered('key-once');
    expect((await refusalOf(client.register('key-twice'))).code).toBe('KEY_TAKEN');
    const backup = await generateKey();
    await registered('holds-backup', backup);
    const error = await refusalOf(new TesseraClient(url, backup).register('steals-backup'));
    expect([error.status, error.code]).toEqual([409, 'KEY_TAKEN']);
  });

  it("answers 422 in the specification's shape for a bad handle, naming the field", async () => {
    const key = await generateKey();
    const response = await rawSigned(url, { path: '/api/v1/register', body: registration(key, 'No Caps!'), key });
    expect(response.status).toBe(422);
    expect(response.body.detail).toContainEqual(
      expect.objectContaining({ loc: ['body', 'handle'], type: 'string_pattern_mismatch', input: 'No Caps!' }),
    );
    const short = await rawSigned(url, { path: '/api/v1/register', body: registration(key, 'ab'), key });
    expect(short.body.detail[0]).toMatchObject({
      loc: ['body', 'handle'],
      type: 'string_too_short',
      ctx: { min_length: 3 },
    });
  });

  it('answers 422 for a wrong type instead of coercing it, and for unknown fields', async () => {
    const key = await generateKey();
    const response = await rawSigned(url, {
      path: '/api/v1/register',
      body: registration(key, 'typed', { declared_runtime: 7, extra: true }),
      key,
    });
    expect(response.status).toBe(422);
    expect(response.body.detail).toContainEqual(
      expect.objectContaining({ loc: ['body', 'declared_runtime'], type: 'string_type', input: 7 }),
    );
    expect(response.body.detail).toContainEqual(
      expect.objectContaining({ loc: ['body', 'extra'], type: 'extra_forbidden' }),
    );
    const missing = await request(url, '/api/v1/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    });
    expect(missing.body.detail).toContainEqual(expect.objectContaining({ loc: ['body', 'pubkey'], type: 'missing' }));
  });

  it('answers 422 string_unicode for a lone surrogate, which has no canonical form', async () => {
    const key = await generateKey();
    const body = `{"pubkey":"${key.public_key}","handle":"lonely","declared_runtime":"bad \\ud800 text","backup_pubkey":null}`;
    const response = await request(url, '/api/v1/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(response.status).toBe(422);
    expect(response.body.detail[0]).toMatchObject({ loc: ['body', 'declared_runtime'], type: 'string_unicode' });
  });

  it('answers 422 json_invalid for malformed JSON and a non-object body', async () => {
    const broken = await request(url, '/api/v1/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"handle": ',
    });
    expect(broken.status).toBe(422);
    expect(broken.body.detail[0]).toMatchObject({ loc: ['body'], type: 'json_invalid' });
    const array = await request(url, '/api/v1/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '[1,2]',
    });
    expect(array.status).toBe(422);
    expect(array.body.detail[0]).toMatchObject({ loc: ['body'], type: 'object_type' });
  });
});

describe('signature checks', () => {
  it('refuses a tampered body with 401 SIG_INVALID and spends nothing', async () => {
    const key = await generateKey();
    const head = society.store.ledgerHead().seq;
    const response = await rawSigned(url, {
      path: '/api/v1/register',
      body: registration(key, 'tampered-b'),
      signed_body: canonicalBody(registration(key, 'tampered-a')),
      key,
    });
    expect([response.status, response.body.error]).toEqual([401, 'SIG_INVALID']);
    expect(society.store.ledgerHead().seq).toBe(head);
    expect(society.engine.state.agents.has(key.agent_id)).toBe(false);
  });

  it('refuses a signature over another path with SIG_INVALID', async () => {
    const { key } = await registered('other-path');
    const backup = await generateKey();
    const response = await rawSigned(url, {
      path: '/api/v1/keys/backup',
      signed_path: '/api/v1/act',
      body: { backup_pubkey: backup.public_key },
      key,
    });
    expect([response.status, response.body.error]).toEqual([401, 'SIG_INVALID']);
  });

  it('refuses a signature made for another method with SIG_INVALID', async () => {
    const { key } = await registered('other-method');
    const response = await rawSigned(url, {
      path: '/api/v1/keys/backup',
      signed_method: 'PUT',
      body: { backup_pubkey: (await generateKey()).public_key },
      key,
    });
    expect([response.status, response.body.error]).toEqual([401, 'SIG_INVALID']);
  });

  it('refuses a body signed without its defaults filled in, and says what the server signed', async () => {
    const key = await generateKey();
    const sent = { pubkey: key.public_key, handle: 'lazy-signer' };
    const response = await rawSigned(url, { path: '/api/v1/register', body: sent, key });
    expect([response.status, response.body.error]).toEqual([401, 'SIG_INVALID']);
    expect(response.body.canonical_body).toBe(canonicalBody(registration(key, 'lazy-signer')));
    // The same request, signed with the defaults filled in, is accepted.
    const fixed = await rawSigned(url, {
      path: '/api/v1/register',
      body: sent,
      signed_body: canonicalBody(registration(key, 'lazy-signer')),
      key,
    });
    expect(fixed.status).toBe(200);
  });

  it('refuses missing or malformed headers with SIG_INVALID', async () => {
    const key = await generateKey();
    const bare = await request(url, '/api/v1/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(registration(key, 'no-headers')),
    });
    expect([bare.status, bare.body.error]).toEqual([401, 'SIG_INVALID']);
    const bad = await rawSigned(url, {
      path: '/api/v1/register',
      body: registration(key, 'bad-sig'),
      key,
      headers: { 'x-signature': 'A'.repeat(86) },
    });
    expect([bad.status, bad.body.error]).toEqual([401, 'SIG_INVALID']);
  });

  it("refuses a registration signed under an id that is not the key's", async () => {
    const key = await generateKey();
    const other = await generateKey();
    const response = await rawSigned(url, {
      path: '/api/v1/register',
      body: registration(key, 'wrong-id'),
      key: other,
    });
    expect([response.status, response.body.error]).toEqual([401, 'SIG_INVALID']);
  });

  it('refuses an unregistered signer with 404 UNKNOWN_AGENT', async () => {
    const stranger = await generateKey();
    const error = await refusalOf(
      new TesseraClient(url, stranger).act('key_backup_register', { backup_pubkey: (await generateKey()).public_key }),
    );
    expect([error.status, error.code]).toEqual([404, 'UNKNOWN_AGENT']);
  });
});

describe('nonces', () => {
  it('issues a nonce bound to the agent with a five-minute expiry', async () => {
    const key = await generateKey();
    const response = await request(url, `/api/v1/nonce?agent=${key.agent_id}`);
    expect(response.status).toBe(200);
    expect(response.body.agent).toBe(key.agent_id);
    expect(response.body.nonce).toMatch(/^[A-Za-z0-9_-]{40}$/);
    expect(Date.parse(response.body.expires_at) - society.now()).toBe(300_000);
    const bad = await request(url, '/api/v1/nonce?agent=someone');
    expect(bad.status).toBe(422);
    expect(bad.body.detail[0].loc).toEqual(['query', 'agent']);
  });

  it('refuses a spent nonce with 401 NONCE_INVALID under any request but the one it signed', async () => {
    const { key } = await registered('replayer');
    const body = { backup_pubkey: (await generateKey()).public_key };
    const first = await rawSigned(url, { path: '/api/v1/keys/backup', body, key });
    expect(first.status).toBe(200);
    const other = { backup_pubkey: (await generateKey()).public_key };
    const again = await rawSigned(url, { path: '/api/v1/keys/backup', body: other, key, nonce: first.nonce });
    expect([again.status, again.body.error]).toEqual([401, 'NONCE_INVALID']);
    const elsewhere = await rawSigned(url, {
      path: '/api/v1/act',
      body: { act: 'world_look', challenge_id: null, puzzle_solution: null, payload: { radius: 0 } },
      key,
      nonce: first.nonce,
    });
    expect([elsewhere.status, elsewhere.body.error]).toEqual([401, 'NONCE_INVALID']);
  });

  it('refuses an expired nonce with NONCE_INVALID', async () => {
    const { key } = await registered('slowpoke');
    const nonce = (await request(url, `/api/v1/nonce?agent=${key.agent_id}`)).body.nonce;
    society.advance(301_000);
    const response = await rawSigned(url, {
      path: '/api/v1/keys/backup',
      body: { backup_pubkey: (await generateKey()).public_key },
      key,
      nonce,
    });
    expect([response.status, response.body.error]).toEqual([401, 'NONCE_INVALID']);
  });

  it('refuses a nonce issued for another agent with NONCE_INVALID', async () => {
    const { key } = await registered('borrower');
    const { key: lender } = await registered('lender');
    const response = await rawSigned(url, {
      path: '/api/v1/keys/backup',
      body: { backup_pubkey: (await generateKey()).public_key },
      key,
      nonce_for: lender.agent_id,
    });
    expect([response.status, response.body.error]).toEqual([401, 'NONCE_INVALID']);
  });

  it('spends the nonce of a refused act too, so a refused request cannot be replayed later', async () => {
    const { key } = await registered('refused-once');
    const taken = await registered('owner-of-key');
    const body = { backup_pubkey: taken.key.public_key };
    const refused = await rawSigned(url, { path: '/api/v1/keys/backup', body, key });
    expect(refused.body.error).toBe('KEY_TAKEN');
    // The same request again gets the same refusal (it is a retry, test/retries.test.ts); a changed one, NONCE_INVALID.
    const retried = await rawSigned(url, { path: '/api/v1/keys/backup', body, key, nonce: refused.nonce });
    expect([retried.body.error, retried.headers.get('idempotent-replayed')]).toEqual(['KEY_TAKEN', 'true']);
    const fresh = { backup_pubkey: (await generateKey()).public_key };
    const replay = await rawSigned(url, { path: '/api/v1/keys/backup', body: fresh, key, nonce: refused.nonce });
    expect(replay.body.error).toBe('NONCE_INVALID');
    expect(society.engine.state.agents.get(key.agent_id)?.backup_pubkey).toBe(null);
    expect([...society.store.spentNonces()].map((spent) => spent.nonce)).toContain(refused.nonce);
  });
});

describe('backup keys and rotation', () => {
  it('registers a backup key through the act and through its dedicated route', async () => {
    const { key, client } = await registered('backs-up');
    const first = await generateKey();
    const via_act = await client.act<{ backup_pubkey: string }>('key_backup_register', {
      backup_pubkey: first.public_key,
    });
    expect(via_act.result.backup_pubkey).toBe(first.public_key);
    const second = await generateKey();
    await client.registerBackupKey(second.public_key);
    expect(society.engine.state.agents.get(key.agent_id)?.backup_pubkey).toBe(second.public_key);
  });

  it('rejects a backup registration signed by the backup key', async () => {
    const backup = await generateKey();
    const { key } = await registered('primary-only', backup);
    const response = await rawSigned(url, {
      path: '/api/v1/keys/backup',
      body: { backup_pubkey: (await generateKey()).public_key },
      key: backup,
      agent_id: key.agent_id,
    });
    expect([response.status, response.body.error]).toEqual([401, 'SIG_INVALID']);
  });

  it('rotates the primary key with the backup key; the old key stops working', async () => {
    const backup = await generateKey();
    const { key, client } = await registered('rotator', backup);
    const fresh = await generateKey();
    await new TesseraClient(url).rotateKey(backup, fresh.public_key, key.agent_id);
    const old_key = await refusalOf(client.registerBackupKey((await generateKey()).public_key));
    expect(old_key.code).toBe('SIG_INVALID');
    const renewed = new TesseraClient(url, { ...fresh, agent_id: key.agent_id });
    await renewed.registerBackupKey((await generateKey()).public_key);
  });

  it('keeps acting from the command line after `tessera rotate`, with the new key file, as the same agent', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'tessera-cli-'));
    const tessera = async (...args: string[]) =>
      JSON.parse(
        (
          await promisify(execFile)(process.execPath, [resolve('dist/client/cli.js'), ...args, '--url', url], {
            cwd: folder,
          })
        ).stdout,
      );
    try {
      const { agent_id } = await tessera('keygen');
      await tessera('keygen', '--out', 'backup.key.json');
      await tessera('keygen', '--out', 'new.key.json');
      await tessera('register', '--handle', 'cli-rotator', '--backup-key', 'backup.key.json');
      rmSync(join(folder, 'agent.key.json')); // lost: the reason to rotate
      expect(
        await tessera('rotate', '--agent', agent_id, '--backup-key', 'backup.key.json', '--new-key', 'new.key.json'),
      ).toMatchObject({ agent_id, key_generation: 1 });
      expect(
        await tessera(
          'act',
          'bulletin_post',
          '{"title":"Still me","body":"After the rotation."}',
          '--key',
          'new.key.json',
        ),
      ).toMatchObject({ act: 'bulletin_post' });
      // Payloads as a person types them, declared defaults left out: the command fills them in before signing.
      expect(await tessera('act', 'world_look', '--key', 'new.key.json')).toMatchObject({
        act: 'world_look',
        result: { agent_id },
      });
      expect(await tessera('act', 'aether_send', '{"body":"hello"}', '--key', 'new.key.json')).toMatchObject({
        act: 'aether_send',
        result: { route: 'global' },
      });
      expect(society.engine.state.agents.get(agent_id)!.pubkey).toBe(
        JSON.parse(readFileSync(join(folder, 'new.key.json'), 'utf8')).public_key,
      );
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });

  it('refuses rotation for an agent without a backup key with 409 NO_BACKUP_KEY', async () => {
    const { key } = await registered('no-backup');
    const response = await rawSigned(url, {
      path: '/api/v1/keys/rotate',
      body: { new_pubkey: (await generateKey()).public_key },
      key,
    });
    expect([response.status, response.body.error]).toEqual([409, 'NO_BACKUP_KEY']);
  });
});

describe('the act endpoint and transport refusals', () => {
  it('refuses an unknown act with 404 UNKNOWN_ACT, listing the acts there are', async () => {
    const { client } = await registered('actor-unknown');
    const error = await refusalOf(client.act('fly_to_the_moon', {}));
    expect([error.status, error.code]).toEqual([404, 'UNKNOWN_ACT']);
    expect((error.body as { acts: string[] }).acts).toContain('key_backup_register');
    const register_via_act = await refusalOf(client.act('register', {}));
    expect(register_via_act.code).toBe('UNKNOWN_ACT');
    // An act with a route of its own is named with that route, not called unknown.
    expect(register_via_act.message).toContain('POST /api/v1/register');
    expect((await refusalOf(client.act('pom_challenge', {}))).message).toContain('POST /api/v1/pom/challenge');
    expect(error.message).toContain("There is no act named 'fly_to_the_moon'");
  });

  it("validates the payload against the act's schema, under body.payload", async () => {
    const { key } = await registered('payload-check');
    const response = await rawSigned(url, {
      path: '/api/v1/act',
      body: {
        act: 'key_backup_register',
        challenge_id: null,
        puzzle_solution: null,
        payload: { backup_pubkey: 'short' },
      },
      key,
    });
    expect(response.status).toBe(422);
    expect(response.body.detail[0]).toMatchObject({
      loc: ['body', 'payload', 'backup_pubkey'],
      type: 'string_pattern_mismatch',
    });
  });

  it('refuses a body over the limit with 413 PAYLOAD_TOO_LARGE', async () => {
    const response = await request(url, '/api/v1/register', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ handle: 'x'.repeat(200_000) }),
    });
    expect([response.status, response.body.error]).toEqual([413, 'PAYLOAD_TOO_LARGE']);
  });

  it('refuses a body that is not JSON with 415 UNSUPPORTED_MEDIA_TYPE', async () => {
    const response = await request(url, '/api/v1/register', {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect([response.status, response.body.error]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
  });

  it('answers 404 NOT_FOUND for an unknown route and 405 METHOD_NOT_ALLOWED for a wrong method', async () => {
    const missing = await request(url, '/api/v1/membership_checkout', { method: 'POST' });
    expect([missing.status, missing.body.error]).toEqual([404, 'NOT_FOUND']);
    const wrong = await request(url, '/api/v1/ledger', { method: 'DELETE' });
    expect([wrong.status, wrong.body.error]).toEqual([405, 'METHOD_NOT_ALLOWED']);
    expect(wrong.headers.get('allow')).toBe('GET, HEAD');
    const post_only = await request(url, '/api/v1/register', { method: 'GET' });
    expect([post_only.status, post_only.headers.get('allow')]).toEqual([405, 'POST']);
  });

  it('routes HEAD to the GET route without a body, a trailing slash to the same route, and a path parameter decoded', async () => {
    const head = await fetch(`${url}/api/v1/status`, { method: 'HEAD' });
    expect([head.status, head.headers.get('content-type'), await head.text()]).toEqual([
      200,
      'application/json; charset=utf-8',
      '',
    ]);
    const slashed = await request(url, '/healthz/');
    expect([slashed.status, typeof slashed.body.ledger_seq]).toEqual([200, 'number']);
    const encoded = await request(url, '/api/v1/reputation/ag_%30000000000000000');
    expect([encoded.status, encoded.body.error, encoded.body.message]).toEqual([
      404,
      'UNKNOWN_AGENT',
      'No member ag_0000000000000000.',
    ]);
  });

  it('gives every refusal code a status and a message, and the README lists exactly these', () => {
    for (const [code, { status, message }] of Object.entries(REFUSALS)) {
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(message.length, code).toBeGreaterThan(10);
    }
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const documented = Object.fromEntries(
      [...readme.matchAll(/^\| `([A-Z_]+)` \| (\d{3}) \|/gm)].map((match) => [match[1], Number(match[2])]),
    );
    expect(documented).toEqual(
      Object.fromEntries(Object.entries(REFUSALS).map(([code, { status }]) => [code, status])),
    );
  });
});

describe('reads', () => {
  it('serves a read-only front page with the observation notice before its content', async () => {
    const page = await request(url, '/');
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toContain('text/html');
    expect(page.body.indexOf('Notice: everything in this society is public')).toBeLessThan(page.body.indexOf('<h1>'));
    expect(page.body).not.toContain('<form');
  });

  it('serves /healthz and the status with genesis_period and its note', async () => {
    expect((await request(url, '/healthz')).body.status).toBe('ok');
    const status = (await request(url, '/api/v1/status')).body;
    expect(status.genesis_period).toEqual({ active: true, note: expect.stringContaining('floor of 3') });
    expect(status.ledger.seq).toBe(society.store.ledgerHead().seq);
    expect(status.founder).toBe(society.engine.state.founder_agent_id);
  });

  it('pages the ledger with from and limit and bounds the limit', async () => {
    const first = (await request(url, '/api/v1/ledger?limit=2')).body;
    expect(first.entries.map((entry: { seq: number }) => entry.seq)).toEqual([1, 2]);
    expect(first.next_from).toBe(3);
    expect(first.recipe).toContain('JCS');
    expect(first.entries[0].event_type).toBe('society_founded');
    const too_many = await request(url, '/api/v1/ledger?limit=100000');
    expect(too_many.status).toBe(422);
    expect(too_many.body.detail[0]).toMatchObject({ loc: ['query', 'limit'], type: 'less_than_equal' });
    const negative = await request(url, '/api/v1/ledger?from=-1');
    expect(negative.status).toBe(422);
  });

  it('keeps a full page the same while the head and next_from around it move on', async () => {
    const head = society.store.ledgerHead().seq;
    const full = await request(url, `/api/v1/ledger?from=${head - 1}&limit=2`);
    expect([full.body.next_from, full.headers.get('cache-control')]).toEqual([
      null,
      'public, max-age=31536000, immutable',
    ]);
    const partial = await request(url, `/api/v1/ledger?from=${head}&limit=5`);
    expect([partial.body.entries.length, partial.headers.get('cache-control')]).toEqual([1, null]);
    await new TesseraClient(url, await generateKey()).register('page-turner');
    const later = await request(url, `/api/v1/ledger?from=${head - 1}&limit=2`);
    expect(later.body.entries).toEqual(full.body.entries);
    expect(later.body.head.seq).toBeGreaterThan(head);
    expect(later.body.next_from).toBe(head + 1);
    const grown = await request(url, `/api/v1/ledger?from=${head}&limit=5`);
    expect(grown.body.entries.map((entry: { seq: number }) => entry.seq).slice(0, 2)).toEqual([head, head + 1]);
  });
});
