import { execFile } from 'node:child_process';
import { rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TesseraClient } from '../client/sdk.js';
import { stateHash } from '../engine/state.js';
import { founderClient, startTestSociety, type TestSociety } from './helpers/society.js';
import { request } from './helpers/signed.js';
import { join, refusal } from './helpers/world.js';
import { RECORD_LEAVES, leafHashesIn } from '../engine/log/tree_batches.js';

const run = promisify(execFile);
let society: TestSociety;
let founder: TesseraClient;

beforeAll(async () => {
  society = await startTestSociety({ genesis: { world_seed: 'world-tests' } });
  founder = await founderClient(society);
  for (const handle of ['alpha', 'beta', 'gamma']) await join(society, handle);
});
afterAll(async () => society.destroy());
afterEach(() => expect(society.bugs).toEqual([]));

const lastEntry = async (event_type: string) =>
  (await request(society.url, '/api/v1/ledger?limit=1000')).body.entries
    .filter((e: any) => e.event_type === event_type)
    .at(-1);

describe('backups and restore drills', () => {
  it('takes a backup while running and passes a restore drill, both on the ledger', async () => {
    const backup = await founder.signed<any>('POST', '/operator/backup', undefined);
    expect(backup.backup_id).toMatch(/^\d{12}-\d+$/);
    await join(society, 'after-backup');
    const drill = await founder.signed<any>('POST', '/operator/restore-drill', undefined);
    expect(drill).toMatchObject({ outcome: 'passed', backup_id: backup.backup_id });
    expect(await lastEntry('backup_taken')).toMatchObject({ data: { backup_id: backup.backup_id } });
    expect(await lastEntry('restore_drill')).toMatchObject({ data: { outcome: 'passed' } });
  });

  it('fails a drill, naming the seq, when a Merkle tree record was edited (the proofs it serves would lie)', async () => {
    await founder.signed('POST', '/operator/backup', undefined);
    await join(society, 'tree-victim');
    const seq = society.store.ledgerHead().seq - 1;
    const tree = society.store.root.openDB<Uint8Array, number>({
      name: 'tree',
      keyEncoding: 'uint32',
      encoding: 'binary',
    });
    // Leaf seq - 1 sits in a record of up to 16 leaves, filed under the record's first leaf
    // (engine/log/tree_batches.ts): which one depends on where the ticks fell.
    const leaf = seq - 1;
    const key = Array.from({ length: RECORD_LEAVES }, (_, back) => leaf - back).find((first) => {
      const stored = first >= 0 ? tree.get(first) : undefined;
      return stored !== undefined && leafHashesIn(first, stored, leaf) !== undefined;
    })!;
    const original = Uint8Array.from(tree.get(key)!);
    const record = Uint8Array.from(original);
    leafHashesIn(key, record, leaf)![0]! ^= 1;
    await tree.put(key, record);
    const drill = await founder.signed<any>('POST', '/operator/restore-drill', undefined);
    expect(drill.outcome).toBe('failed');
    expect(drill.detail).toContain(`Merkle tree`);
    expect(drill.detail).toContain(`seq ${seq}`);
    await tree.put(key, original);
    expect((await founder.signed<any>('POST', '/operator/restore-drill', undefined)).outcome).toBe('passed');
  });

  it('fails a drill, naming the first divergent seq, when the log was tampered with', async () => {
    await founder.signed('POST', '/operator/backup', undefined);
    const victim = await join(society, 'victim');
    const seq = (await request(society.url, '/api/v1/ledger?limit=1000')).body.entries.find(
      (e: any) => e.event_type === 'agent_registered' && e.actor === victim.id,
    ).seq;
    // Tamper with the live log after the backup: the registration now names another handle.
    const log = society.store.root.openDB<string, number>({ name: 'log', keyEncoding: 'uint32', encoding: 'string' });
    for (const { key, value } of log.getRange({ start: 1 })) {
      if (!value.includes('"victim"')) continue;
      await log.put(key, value.replace('"victim"', '"impostor"'));
    }
    const drill = await founder.signed<any>('POST', '/operator/restore-drill', undefined);
    expect(drill.outcome).toBe('failed');
    expect(drill.detail).toContain(`seq ${seq}`);
    expect(await lastEntry('restore_drill')).toMatchObject({ data: { outcome: 'failed' } });
  });

  it('lets only the Founder run them', async () => {
    const member = await join(society, 'curious');
    const error = await refusal(member.client.signed('POST', '/operator/backup', undefined));
    expect([error.status, error.code]).toEqual([403, 'FOUNDER_ONLY']);
  });
});

describe('metrics', () => {
  it('serves Prometheus metrics: queue depth, tick and commit times, acts by name and outcome, request latency by route', async () => {
    await request(society.url, '/api/v1/status');
    const text = (await request(society.url, '/metrics')).body as string;
    expect(text).toMatch(/tessera_queue_depth \d+/);
    expect(text).toContain('tessera_tick_commit_seconds_bucket');
    expect(text).toMatch(/tessera_acts_total\{act="register",outcome="ok"\} \d+/);
    expect(text).toMatch(
      /tessera_http_request_seconds_count\{route="\/api\/v1\/status",method="GET",status="200"\} \d+/,
    );
  });
});

describe('tessera-operator replay', () => {
  it('rebuilds the state from the log alone to the live state hash', async () => {
    const other = await startTestSociety({ genesis: { world_seed: 'world-tests' } });
    await join(other, 'replayed');
    await other.engine.drain();
    const live = stateHash(other.engine.state);
    const head = other.store.ledgerHead();
    await other.close();
    const { stdout } = await run(process.execPath, ['dist/api/operator_cli.js', 'replay', other.data_dir]);
    expect(JSON.parse(stdout)).toMatchObject({ state_hash: live, ledger_seq: head.seq, ledger_head: head.hash });
    rmSync(other.data_dir, { recursive: true, force: true });
  });
});
