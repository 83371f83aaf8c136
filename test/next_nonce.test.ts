import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, type AgentKey } from '../client/keys.js';
import { HEADER_NEXT_NONCE, HEADER_NEXT_NONCE_EXPIRES_AT } from '../client/protocol.js';
import { TesseraClient } from '../client/sdk.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { fetchNonce, rawSigned } from './helpers/signed.js';

const act = (payload: Record<string, unknown>, name: string) => ({
  act: name,
  challenge_id: null,
  puzzle_solution: null,
  payload,
});
/** A durable act that needs neither membership nor Proof of Machine. */
const backupKeyAct = async () => act({ backup_pubkey: (await generateKey()).public_key }, 'key_backup_register');

describe('the next nonce handed over on every signed answer', () => {
  let society: TestSociety;
  let key: AgentKey;

  beforeAll(async () => {
    society = await startTestSociety();
    key = await generateKey();
    await new TesseraClient(society.url, key).register('relay');
  });
  afterAll(async () => society.destroy());

  it('signs the next act with the nonce the last answer carried, once only', async () => {
    const first = await rawSigned(society.url, { path: '/api/v1/act', body: await backupKeyAct(), key });
    expect(first.status).toBe(200);
    const next = first.headers.get(HEADER_NEXT_NONCE)!;
    expect(next).toMatch(/^[A-Za-z0-9_-]{40}$/);
    expect(Date.parse(first.headers.get(HEADER_NEXT_NONCE_EXPIRES_AT)!)).toBe(society.now() + 300_000);
    const second = await rawSigned(society.url, { path: '/api/v1/act', body: await backupKeyAct(), key, nonce: next });
    expect([second.status, second.body.act]).toEqual([200, 'key_backup_register']);
    expect(second.headers.get(HEADER_NEXT_NONCE)).not.toBe(next);
    const replayed = await rawSigned(society.url, {
      path: '/api/v1/act',
      body: await backupKeyAct(),
      key,
      nonce: next,
    });
    expect([replayed.status, replayed.body.error]).toEqual([401, 'NONCE_INVALID']);
  });

  it('hands one over on an act the engine refused too, since the spent nonce is gone', async () => {
    const refused = await rawSigned(society.url, {
      path: '/api/v1/act',
      body: act({ motion_id: 'M-0404-abcd', choice: 'aye' }, 'vote_cast'),
      key,
    });
    expect([refused.status, refused.body.error]).toEqual([404, 'UNKNOWN_MOTION']);
    const next = refused.headers.get(HEADER_NEXT_NONCE)!;
    const used = await rawSigned(society.url, { path: '/api/v1/act', body: await backupKeyAct(), key, nonce: next });
    expect(used.status).toBe(200);
  });

  it('hands none over when the signature or the nonce fails, and binds it to the signer', async () => {
    const forged = await rawSigned(society.url, {
      path: '/api/v1/act',
      body: await backupKeyAct(),
      signed_body: '{}',
      key,
    });
    expect([forged.status, forged.headers.get(HEADER_NEXT_NONCE)]).toEqual([401, null]);
    const stale = await rawSigned(society.url, {
      path: '/api/v1/act',
      body: await backupKeyAct(),
      key,
      nonce: 'n'.repeat(24),
    });
    expect([stale.status, stale.headers.get(HEADER_NEXT_NONCE)]).toEqual([401, null]);
    const mine = (await rawSigned(society.url, { path: '/api/v1/act', body: await backupKeyAct(), key })).headers.get(
      HEADER_NEXT_NONCE,
    )!;
    const other = await generateKey();
    await new TesseraClient(society.url, other).register('other');
    const borrowed = await rawSigned(society.url, {
      path: '/api/v1/act',
      body: await backupKeyAct(),
      key: other,
      nonce: mine,
    });
    expect([borrowed.status, borrowed.body.error]).toEqual([401, 'NONCE_INVALID']);
  });

  it('lets the SDK act in a loop without asking for nonces, and recover when a handed-over one is gone', async () => {
    const nonce_requests: string[] = [];
    const counting: typeof fetch = (input, init) => {
      if (String(input).includes('/api/v1/nonce')) nonce_requests.push(String(input));
      return fetch(input, init);
    };
    const client = new TesseraClient(society.url, key, counting);
    for (let i = 0; i < 5; i++)
      await client.act('key_backup_register', { backup_pubkey: (await generateKey()).public_key });
    expect(nonce_requests).toHaveLength(1);
    // Nonces asked for in the agent's name, however many, leave the handed-over one valid.
    for (let i = 0; i < 16; i++) await fetchNonce(society.url, key.agent_id);
    await client.act('key_backup_register', { backup_pubkey: (await generateKey()).public_key });
    expect(nonce_requests).toHaveLength(1);
    // Expired on the server's clock (as after a restart, it is refused): the SDK fetches a fresh one and signs again.
    society.advance(300_000);
    const after = await client.act('key_backup_register', { backup_pubkey: (await generateKey()).public_key });
    expect(after.act).toBe('key_backup_register');
    expect(nonce_requests).toHaveLength(2);
  });
});
