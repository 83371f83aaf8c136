import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { configFromEnv } from '../api/config.js';
import { generateKey, type AgentKey } from '../client/keys.js';
import { TesseraClient } from '../client/sdk.js';
import { Engine, type Submission } from '../engine/engine.js';
import { LmdbStore } from '../engine/store/lmdb_store.js';
import type { TickCommit } from '../engine/store/types.js';
import { fetchNonce, rawSigned } from './helpers/signed.js';
import { startTestSociety, tempDir } from './helpers/society.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** Patches a store so that its next commit waits until released: what arrives meanwhile stays queued. */
function holdNextCommit(store: LmdbStore): { release: () => void; held: () => Promise<void>; commits: TickCommit[] } {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const commits: TickCommit[] = [];
  const commit = store.commitTick.bind(store);
  store.commitTick = async (tick) => {
    commits.push(tick);
    if (commits.length === 1) await gate;
    return commit(tick);
  };
  const held = async () => {
    while (commits.length === 0) await new Promise((resolve) => setImmediate(resolve));
  };
  return { release, held, commits };
}

const registration = (key: AgentKey, handle: string): Submission => ({
  act: 'register',
  actor: key.agent_id,
  payload: { pubkey: key.public_key, handle, declared_runtime: '', backup_pubkey: null },
});

describe('the bounded engine queue', () => {
  async function engineWithDepth(queue_depth_max: number) {
    const dir = tempDir();
    const store = new LmdbStore(dir);
    const founder = await generateKey();
    const genesis = { founder_pubkey: founder.public_key, world_seed: 'queue' };
    const clock = () => Date.parse('2026-11-21T10:00:00Z');
    const engine = await Engine.open(store, genesis, {
      clock,
      queue_depth_max,
      on_fatal: (error) => {
        throw error;
      },
    });
    cleanup.push(async () => {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    return { store, engine };
  }

  it('refuses a member submission past queue_depth_max at once with QUEUE_FULL, committing nothing of it', async () => {
    const { store, engine } = await engineWithDepth(2);
    const { release, held, commits } = holdNextCommit(store);
    const keys = await Promise.all(Array.from({ length: 4 }, () => generateKey()));
    const first = engine.submit(registration(keys[0]!, 'queue-first'));
    await held();
    const waiting = [
      engine.submit(registration(keys[1]!, 'queue-second')),
      engine.submit(registration(keys[2]!, 'queue-third')),
    ];
    expect(engine.queue_depth).toBe(2);
    const spent_nonce = { nonce: 'refused-nonce-000000000000', expires_at_ms: Date.parse('2026-11-21T10:05:00Z') };
    const refused = await engine.submit({ ...registration(keys[3]!, 'queue-fourth'), consumed_nonce: spent_nonce });
    const message = expect.stringContaining('Retry-After');
    expect(refused).toEqual({ ok: false, code: 'QUEUE_FULL', message, details: { retry_after_seconds: 1 } });
    expect(engine.queueFullRefusal()?.code).toBe('QUEUE_FULL');
    release();
    expect((await Promise.all([first, ...waiting])).map((outcome) => outcome.ok)).toEqual([true, true, true]);
    await engine.drain();
    expect(engine.queueFullRefusal()).toBeUndefined();
    const registered = [engine.state.agents.has(keys[2]!.agent_id), engine.state.agents.has(keys[3]!.agent_id)];
    expect(registered).toEqual([true, false]);
    const committed = commits.flatMap((commit) => commit.record?.actions ?? []).map((action) => action.actor);
    expect(committed).not.toContain(keys[3]!.agent_id);
    expect([...store.spentNonces()].map((spent) => spent.nonce)).not.toContain(spent_nonce.nonce);
  });

  it('always queues acts in the system name (webhooks, backups, drills), even with the queue full', async () => {
    const { store, engine } = await engineWithDepth(1);
    const { release, held } = holdNextCommit(store);
    const keys = await Promise.all(Array.from({ length: 3 }, () => generateKey()));
    const first = engine.submit(registration(keys[0]!, 'system-first'));
    await held();
    const member_waiting = engine.submit(registration(keys[1]!, 'system-second'));
    expect((await engine.submit(registration(keys[2]!, 'system-third'))).ok).toBe(false);
    const backup = { backup_id: 'queue-full-backup', ledger_seq: 1, ledger_hash: '0'.repeat(64) };
    const system = engine.submit({ act: 'backup_taken', actor: 'system', payload: backup });
    expect(engine.queue_depth).toBe(2);
    release();
    const outcomes = await Promise.all([first, member_waiting, system]);
    expect(outcomes.map((outcome) => outcome.ok)).toEqual([true, true, true]);
  });

  it('rejects a queue_depth_max below one when the engine opens', async () => {
    await expect(engineWithDepth(0)).rejects.toThrow('queue_depth_max must be at least 1');
  });
});

describe('the bounded engine queue over HTTP', () => {
  it('answers 503 QUEUE_FULL with Retry-After before the signature check; the same request passes later', async () => {
    const society = await startTestSociety({ config: { queue_depth_max: 1 } });
    cleanup.push(() => society.destroy());
    const key = await generateKey();
    const client = new TesseraClient(society.url, key);
    await client.register('queue-http');
    const backupKey = async () => ({ backup_pubkey: (await generateKey()).public_key });
    const { release, held } = holdNextCommit(society.store);
    cleanup.push(async () => release());

    const in_commit = rawSigned(society.url, { path: '/api/v1/keys/backup', body: await backupKey(), key });
    await held();
    const queued = rawSigned(society.url, { path: '/api/v1/keys/backup', body: await backupKey(), key });
    while (society.engine.queue_depth === 0) await new Promise((resolve) => setTimeout(resolve, 5));

    const nonce = await fetchNonce(society.url, key.agent_id);
    const body = await backupKey();
    const full = await rawSigned(society.url, { path: '/api/v1/keys/backup', body, key, nonce });
    expect([full.status, full.body.error, full.headers.get('retry-after')]).toEqual([503, 'QUEUE_FULL', '1']);
    const move = { act: 'world_move', challenge_id: null, puzzle_solution: null, payload: { path: ['n'] } };
    const via_act = await rawSigned(society.url, { path: '/api/v1/act', body: move, key });
    expect([via_act.status, via_act.body.error]).toEqual([503, 'QUEUE_FULL']);
    // A read act does not queue, so a full queue does not stop it.
    const look = await client.act('world_look', { radius: 1 });
    expect(look.act).toBe('world_look');

    release();
    expect([(await in_commit).status, (await queued).status]).toEqual([200, 200]);
    const retried = await rawSigned(society.url, { path: '/api/v1/keys/backup', body, key, nonce });
    const backup_pubkey = society.engine.state.agents.get(key.agent_id)?.backup_pubkey;
    expect([retried.status, backup_pubkey]).toEqual([200, body.backup_pubkey]);
    expect(society.bugs).toEqual([]);
  });
});

describe('the queue depth setting', () => {
  it('defaults to 10,000 and is read from QUEUE_DEPTH_MAX, at least 1', () => {
    const depths = [configFromEnv({}).queue_depth_max, configFromEnv({ QUEUE_DEPTH_MAX: '50' }).queue_depth_max];
    expect(depths).toEqual([10_000, 50]);
    expect(() => configFromEnv({ QUEUE_DEPTH_MAX: '0' })).toThrow(/QUEUE_DEPTH_MAX/);
  });
});
