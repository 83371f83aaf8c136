import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as joinPath } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey, type AgentKey } from '../client/keys.js';
import { TesseraClient } from '../client/sdk.js';
import { startChildServer } from './helpers/child_server.js';
import { fetchNonce, rawSigned, type RawResponse } from './helpers/signed.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { join, pacing, type Member } from './helpers/world.js';

/** An act through POST /api/v1/act, its defaults written out as they are signed. */
const actBody = (act: string, payload: Record<string, unknown>) => ({
  act,
  challenge_id: null,
  puzzle_solution: null,
  payload,
});

/** The answer but for its receipt, which a replay signs against the newest checkpoint. */
function answerOf(response: RawResponse) {
  const { receipt, ...rest } = response.body as { receipt?: { entry: string } };
  return { status: response.status, body: rest, entry: receipt?.entry };
}

describe('a retried signed request', () => {
  let society: TestSociety;
  let ada: Member;

  beforeAll(async () => {
    society = await startTestSociety({ genesis: { world_seed: 'world-tests' } });
    ada = await join(society, 'ada');
    step = pacing(society, ada);
  });
  afterAll(() => society.destroy());

  const entriesSigned = (nonce: string) =>
    [...society.store.ledgerEntries(1)].filter((entry) => entry.json.includes(`"nonce":"${nonce}"`)).length;
  let step: () => string;

  it('gets the first answer again, marked, with a new next nonce, and is applied once', async () => {
    const body = actBody('world_move', { path: [step()] });
    const before = { ...society.engine.state.world.agents.get(ada.id)! };
    const first = await rawSigned(society.url, { path: '/api/v1/act', body, key: ada.key });
    expect(first.status).toBe(200);
    const after = { ...society.engine.state.world.agents.get(ada.id)! };
    const again = await rawSigned(society.url, { path: '/api/v1/act', body, key: ada.key, nonce: first.nonce });
    expect(answerOf(again)).toEqual(answerOf(first));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.headers.get('x-next-nonce')).toMatch(/^[A-Za-z0-9_-]{40}$/);
    expect(again.headers.get('x-next-nonce')).not.toBe(first.headers.get('x-next-nonce'));
    expect(entriesSigned(first.nonce)).toBe(1);
    expect(society.engine.state.world.agents.get(ada.id)!.x).toBe(after.x);
    expect(after.x).not.toBe(before.x);
  });

  it('sent twice at once, is applied once and both get the same answer', async () => {
    const body = actBody('world_move', { path: [step()] });
    const nonce = await fetchNonce(society.url, ada.id);
    const [one, two] = await Promise.all([
      rawSigned(society.url, { path: '/api/v1/act', body, key: ada.key, nonce }),
      rawSigned(society.url, { path: '/api/v1/act', body, key: ada.key, nonce }),
    ]);
    expect(answerOf(one)).toEqual(answerOf(two));
    expect(one.status).toBe(200);
    expect([one, two].filter((answer) => answer.headers.get('idempotent-replayed') === 'true')).toHaveLength(1);
    expect(entriesSigned(nonce)).toBe(1);
  });

  it('gets its refusal again, and nothing more is spent or recorded', async () => {
    // More AP than anyone holds: refused by the world's rules, after the signature, its nonce spent.
    const ap = society.engine.state.world.agents.get(ada.id)!.ap;
    const body = actBody('world_give', { to: ada.id, resource: 'dirt', amount: 1_000_000 });
    const head = society.store.ledgerHead().seq;
    const first = await rawSigned(society.url, { path: '/api/v1/act', body, key: ada.key });
    const again = await rawSigned(society.url, { path: '/api/v1/act', body, key: ada.key, nonce: first.nonce });
    expect(first.status).toBeGreaterThanOrEqual(400);
    expect(first.status).toBeLessThan(500);
    expect([again.status, again.body]).toEqual([first.status, first.body]);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(society.engine.state.world.agents.get(ada.id)!.ap).toBe(ap);
    expect(society.store.ledgerHead().seq).toBe(head);
  });

  it('is refused NONCE_INVALID when anything it signed differs: body, path, or the signer', async () => {
    const body = actBody('world_move', { path: [step()] });
    const first = await rawSigned(society.url, { path: '/api/v1/act', body, key: ada.key });
    const changed = await rawSigned(society.url, {
      path: '/api/v1/act',
      body: actBody('world_move', { path: [step(), step()] }),
      key: ada.key,
      nonce: first.nonce,
    });
    expect([changed.status, changed.body.error]).toEqual([401, 'NONCE_INVALID']);
    // The same request signed by someone else under ada's id: a valid nonce's identity, a different signature.
    const mallory = await generateKey();
    const forged = await rawSigned(society.url, {
      path: '/api/v1/act',
      body,
      key: mallory,
      agent_id: ada.id,
      nonce: first.nonce,
    });
    expect([forged.status, forged.body.error]).toEqual([401, 'NONCE_INVALID']);
    expect(entriesSigned(first.nonce)).toBe(1);
  });

  it('of a signed read is answered afresh, and not marked a replay: its answer is new', async () => {
    const body = actBody('world_look', { radius: 0 });
    const first = await rawSigned(society.url, { path: '/api/v1/act', body, key: ada.key });
    const again = await rawSigned(society.url, { path: '/api/v1/act', body, key: ada.key, nonce: first.nonce });
    expect([again.status, again.headers.get('idempotent-replayed')]).toEqual([200, null]);
    expect(again.headers.get('x-next-nonce')).toBeTruthy();
    expect(again.body.result.position).toEqual(first.body.result.position);
  });

  it('after its nonce expired, is refused like any expired nonce', async () => {
    const body = actBody('world_move', { path: [step()] });
    const first = await rawSigned(society.url, { path: '/api/v1/act', body, key: ada.key });
    society.advance(301_000);
    society.store.pruneKeptAnswers(society.now());
    // The prune is an LMDB write, committed asynchronously: the resend must meet its result, not race it.
    await society.store.flushed();
    const late = await rawSigned(society.url, { path: '/api/v1/act', body, key: ada.key, nonce: first.nonce });
    expect([late.status, late.body.error]).toEqual([401, 'NONCE_INVALID']);
  });
});

describe('the SDK', () => {
  let society: TestSociety;

  beforeAll(async () => {
    society = await startTestSociety({ genesis: { world_seed: 'world-tests' } });
  });
  afterAll(() => society.destroy());

  it('sends the same signed request again when the answer was lost, and the act lands once', async () => {
    const key = await generateKey();
    let lost = 0;
    // Delivers the request, then loses the answer once: what a dropped connection does.
    const flaky: typeof fetch = async (input, init) => {
      const response = await fetch(input, init);
      if (String(input).endsWith('/api/v1/keys/backup') && lost++ === 0) throw new TypeError('fetch failed');
      return response;
    };
    const client = new TesseraClient(society.url, key, flaky);
    await client.register('flaky');
    const backup = await generateKey();
    const answer = (await client.registerBackupKey(backup.public_key)) as { backup_pubkey: string };
    expect([lost, answer.backup_pubkey]).toEqual([2, backup.public_key]);
    const registered = [...society.store.ledgerEntries(1)].filter((entry) =>
      entry.json.includes('"event_type":"key_backup_registered"'),
    );
    expect(registered).toHaveLength(1);
  });
});

describe('a retry after the server was killed', () => {
  const data_dir = mkdtempSync(joinPath(tmpdir(), 'tessera-retry-'));
  afterAll(() => rmSync(data_dir, { recursive: true, force: true }));

  it('gets the answer the act got before the SIGKILL, and the act is on the ledger once', async () => {
    const env = { DATA_DIR: data_dir };
    let server = await startChildServer(env);
    const key: AgentKey = await generateKey();
    await new TesseraClient(server.url, key).register('survivor');
    const backup = await generateKey();
    const body = { backup_pubkey: backup.public_key };
    const first = await rawSigned(server.url, { path: '/api/v1/keys/backup', body, key });
    expect(first.status).toBe(200);
    await server.kill('SIGKILL');
    server = await startChildServer(env);
    try {
      // The new process's nonces are signed with a new secret: this one no longer verifies, but its answer was kept.
      const again = await rawSigned(server.url, { path: '/api/v1/keys/backup', body, key, nonce: first.nonce });
      expect(answerOf(again)).toEqual(answerOf(first));
      expect(again.headers.get('idempotent-replayed')).toBe('true');
      const ledger = (await (await fetch(`${server.url}/api/v1/ledger?limit=1000`)).json()) as {
        entries: { event_type: string; proof?: { nonce: string } }[];
      };
      expect(ledger.entries.filter((entry) => entry.proof?.nonce === first.nonce)).toHaveLength(1);
    } finally {
      await server.kill('SIGKILL');
    }
  }, 60_000);
});
