import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, type AgentKey } from '../client/keys.js';
import { HEADER_NEXT_NONCE } from '../client/protocol.js';
import { TesseraClient } from '../client/sdk.js';
import { LoopbackClient } from './helpers/http_from.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';

const backupKeyBody = async () => ({ backup_pubkey: (await generateKey()).public_key });

/** The nonce with its bytes changed by `change`, re-encoded: a well-formed nonce the server never issued. */
function tampered(nonce: string, change: (bytes: Buffer) => void): string {
  const bytes = Buffer.from(nonce, 'base64url');
  change(bytes);
  return bytes.toString('base64url');
}

describe('stateless nonces over HTTP', () => {
  let society: TestSociety;
  let key: AgentKey;
  let client: LoopbackClient;

  beforeAll(async () => {
    society = await startTestSociety({ config: { nonce_limits: { nonces_per_second: 2, burst_nonces: 5 } } });
    key = await generateKey();
    await new TesseraClient(society.url, key).register('nonce-tester');
    client = new LoopbackClient(society.url, '127.0.2.1');
  });
  afterAll(async () => {
    client.close();
    await society.destroy();
  });

  const refusal = (answer: { status: number; body: any }) => [answer.status, answer.body.error];

  it('refuses a tampered MAC, a forged expiry or counter, and a nonce of the old shape: NONCE_INVALID, nothing spent', async () => {
    const nonce = await client.nonce(key.agent_id);
    const forgeries = [
      tampered(nonce, (bytes) => bytes.writeUInt8(bytes.readUInt8(29) ^ 1, 29)),
      tampered(nonce, (bytes) => bytes.writeUIntBE(bytes.readUIntBE(0, 6) + 3_600_000, 0, 6)),
      tampered(nonce, (bytes) => bytes.writeUIntBE(bytes.readUIntBE(6, 6) + 1, 6, 6)),
      'x'.repeat(24),
    ];
    for (const forged of forgeries) {
      const answer = await client.signed('/api/v1/keys/backup', await backupKeyBody(), key, forged);
      expect(refusal(answer), forged).toEqual([401, 'NONCE_INVALID']);
      expect(answer.headers[HEADER_NEXT_NONCE]).toBeUndefined();
    }
    // The genuine one was never touched by its forgeries.
    expect((await client.signed('/api/v1/keys/backup', await backupKeyBody(), key, nonce)).status).toBe(200);
  });

  it('refuses a nonce for another id, an expired one and a replayed one with NONCE_INVALID', async () => {
    const other = await generateKey();
    const theirs = await client.nonce(other.agent_id);
    expect(refusal(await client.signed('/api/v1/keys/backup', await backupKeyBody(), key, theirs))).toEqual([
      401,
      'NONCE_INVALID',
    ]);

    const used = await client.nonce(key.agent_id);
    const first = await client.signed('/api/v1/keys/backup', await backupKeyBody(), key, used);
    expect(first.status).toBe(200);
    expect(refusal(await client.signed('/api/v1/keys/backup', await backupKeyBody(), key, used))).toEqual([
      401,
      'NONCE_INVALID',
    ]);

    const handed_over = first.headers[HEADER_NEXT_NONCE] as string;
    society.advance(300_000);
    expect(refusal(await client.signed('/api/v1/keys/backup', await backupKeyBody(), key, handed_over))).toEqual([
      401,
      'NONCE_INVALID',
    ]);
  });

  it('lets only one of two concurrent requests with the same nonce through', async () => {
    society.advance(60_000);
    const nonce = await client.nonce(key.agent_id);
    const racers = [new LoopbackClient(society.url, '127.0.2.2'), new LoopbackClient(society.url, '127.0.2.3')];
    const answers = await Promise.all(
      racers.map(async (racer) => racer.signed('/api/v1/keys/backup', await backupKeyBody(), key, nonce)),
    );
    for (const racer of racers) racer.close();
    expect(answers.map((answer) => answer.status).sort()).toEqual([200, 401]);
  });

  it('limits the nonce route per client address with 429 RATE_LIMITED and Retry-After, each address on its own', async () => {
    society.advance(60_000);
    const flooder = new LoopbackClient(society.url, '127.0.2.9');
    const answers = [];
    for (let i = 0; i < 7; i++) answers.push(await flooder.send('GET', `/api/v1/nonce?agent=${key.agent_id}`));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200, 200, 429, 429]);
    const limited = answers[5]!;
    expect(limited.body.error).toBe('RATE_LIMITED');
    expect(Number(limited.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // Another address is untouched, and the route recovers at the configured rate.
    expect((await client.send('GET', `/api/v1/nonce?agent=${key.agent_id}`)).status).toBe(200);
    society.advance(1_000);
    const recovered = [
      await flooder.send('GET', `/api/v1/nonce?agent=${key.agent_id}`),
      await flooder.send('GET', `/api/v1/nonce?agent=${key.agent_id}`),
      await flooder.send('GET', `/api/v1/nonce?agent=${key.agent_id}`),
    ];
    expect(recovered.map((answer) => answer.status)).toEqual([200, 200, 429]);
    flooder.close();
  });

  it('never limits the nonce handed over on a signed answer', async () => {
    society.advance(60_000);
    const limited = new LoopbackClient(society.url, '127.0.2.10');
    let nonce = await limited.nonce(key.agent_id);
    for (let i = 0; i < 5; i++) await limited.send('GET', `/api/v1/nonce?agent=${key.agent_id}`);
    expect((await limited.send('GET', `/api/v1/nonce?agent=${key.agent_id}`)).status).toBe(429);
    for (let i = 0; i < 8; i++) {
      const answer = await limited.signed('/api/v1/keys/backup', await backupKeyBody(), key, nonce);
      expect(answer.status).toBe(200);
      nonce = answer.headers[HEADER_NEXT_NONCE] as string;
    }
    limited.close();
  });
});
