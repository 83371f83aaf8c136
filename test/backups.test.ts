import { createHash } from 'node:crypto';
import {
  closeSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  truncateSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { BACKUPS_FOLDER, INCOMPLETE_PREFIX, listBackups } from '../engine/store/backups.js';
import type { TesseraClient } from '../client/sdk.js';
import { open } from 'lmdb';
import { founderClient, startTestSociety, type TestSociety } from './helpers/society.js';
import { rebindLogToLedger, stoppedSociety, tamperLedger } from './helpers/stores.js';
import { request } from './helpers/signed.js';
import { join as joinSociety } from './helpers/world.js';

const societies: TestSociety[] = [];
afterEach(async () => {
  for (const society of societies.splice(0)) {
    expect(society.bugs).toEqual([]);
    await society.destroy();
  }
});

async function newSociety(): Promise<{ society: TestSociety; founder: TesseraClient; backups: string }> {
  const started = await startTestSociety({ genesis: { world_seed: 'backup-tests' } });
  societies.push(started);
  return { society: started, founder: await founderClient(started), backups: join(started.data_dir, BACKUPS_FOLDER) };
}

const backup = (founder: TesseraClient) => founder.signed<any>('POST', '/operator/backup', undefined);
const drill = (founder: TesseraClient) => founder.signed<any>('POST', '/operator/restore-drill', undefined);
const sha256 = (path: string) => createHash('sha256').update(readFileSync(path)).digest('hex');

async function seqOf(society: TestSociety, agent_id: string): Promise<number> {
  const entries = (await request(society.url, '/api/v1/ledger?limit=1000')).body.entries;
  return entries.find((entry: any) => entry.event_type === 'agent_registered' && entry.actor === agent_id).seq;
}

/** Edits an entry's data in the live store and keeps its stored hash, as an operator with disk access could. */
async function editEntryKeepingHash(society: TestSociety, seq: number, from: string, to: string): Promise<void> {
  const ledger = society.store.root.openDB<string, number>({
    name: 'ledger',
    keyEncoding: 'uint32',
    encoding: 'string',
  });
  const json = ledger.get(seq)!;
  expect(json).toContain(from);
  const edited = json.replace(from, to);
  expect(edited.slice(-66, -2)).toBe(json.slice(-66, -2));
  await ledger.put(seq, edited);
}

describe('backups', () => {
  it('are written under a temporary name and renamed when complete, with a manifest of the head, the size and the SHA-256 of data.mdb', async () => {
    const { society, founder, backups } = await newSociety();
    const head = society.store.ledgerHead();
    const taken = await backup(founder);
    expect(readdirSync(backups)).toEqual([taken.backup_id]);
    const manifest = JSON.parse(readFileSync(join(backups, taken.backup_id, 'manifest.json'), 'utf8'));
    const data = join(backups, taken.backup_id, 'data.mdb');
    expect(manifest).toEqual({
      format: 1,
      backup_id: taken.backup_id,
      ledger_seq: head.seq,
      ledger_hash: head.hash,
      data_bytes: statSync(data).size,
      data_sha256: sha256(data),
      created_at: new Date(society.now()).toISOString(),
    });
    expect(taken.manifest).toEqual(manifest);
  });

  it('skips and reports an interrupted backup (an 8 KB data.mdb, no manifest) and a leftover temporary folder; the drill restores the previous complete one; the next backup removes the leftover', async () => {
    const { society, founder, backups } = await newSociety();
    const complete = await backup(founder);
    await joinSociety(society, 'after-backup');
    // What a SIGKILL half-way through a copy leaves: the first 8 KB of a store, no manifest.
    for (const name of ['999999999999-1', `${INCOMPLETE_PREFIX}999999999999-2`]) {
      mkdirSync(join(backups, name));
      copyFileSync(join(backups, complete.backup_id, 'data.mdb'), join(backups, name, 'data.mdb'));
      truncateSync(join(backups, name, 'data.mdb'), 8192);
    }
    const result = await drill(founder);
    expect(result).toMatchObject({ outcome: 'passed', backup_id: complete.backup_id });
    expect(result.skipped).toEqual([
      { name: `${INCOMPLETE_PREFIX}999999999999-2`, reason: expect.stringContaining('interrupted') },
      { name: '999999999999-1', reason: expect.stringContaining('no manifest') },
    ]);
    expect(result.detail).toContain('999999999999-1 (no manifest');
    expect(society.logs.some((line) => line.includes('"backup_skipped"') && line.includes('999999999999-1'))).toBe(
      true,
    );

    const next = await backup(founder);
    expect(next.leftovers_removed).toEqual([`${INCOMPLETE_PREFIX}999999999999-2`]);
    expect(next.skipped).toEqual([{ name: '999999999999-1', reason: expect.stringContaining('no manifest') }]);
    expect(readdirSync(backups).filter((name) => name.startsWith(INCOMPLETE_PREFIX))).toEqual([]);
  });

  it('skips a backup truncated after completion (size) or changed at the same size (SHA-256), and fails cleanly with no complete backup when none is left', async () => {
    const { society, founder, backups } = await newSociety();
    const first = await backup(founder);
    await joinSociety(society, 'between');
    const second = await backup(founder);
    truncateSync(join(backups, second.backup_id, 'data.mdb'), 8192);
    const from_first = await drill(founder);
    expect(from_first).toMatchObject({ outcome: 'passed', backup_id: first.backup_id });
    expect(from_first.skipped).toEqual([{ name: second.backup_id, reason: expect.stringContaining('8192 bytes') }]);

    const data = join(backups, first.backup_id, 'data.mdb');
    const fd = openSync(data, 'r+');
    writeSync(fd, Buffer.alloc(4096, 0xff), 0, 4096, 4096);
    closeSync(fd);
    const none = await drill(founder);
    expect(none).toMatchObject({ outcome: 'failed', backup_id: null });
    expect(none.detail).toMatch(/^no complete backup to restore from/);
    expect(none.skipped.map((skipped: any) => [skipped.name, skipped.reason])).toEqual([
      [second.backup_id, expect.stringContaining('8192 bytes')],
      [first.backup_id, expect.stringContaining('SHA-256')],
    ]);
    expect((await request(society.url, '/healthz')).status).toBe(200);
    const entries = (await request(society.url, '/api/v1/ledger?limit=1000')).body.entries;
    expect(entries.at(-1)).toMatchObject({ event_type: 'restore_drill', data: { outcome: 'failed', backup_id: null } });
  });
});

describe('the order of backups', () => {
  it("is the order they were taken, not their seqs: after a restore, retention keeps and the drill takes the new history's", () => {
    const data_dir = mkdtempSync(join(tmpdir(), 'tessera-backup-order-'));
    try {
      // Taken before a restore to seq 50: seq 900 at t=1000 and seq 950 at t=2000; after it, seq 60 at t=3000.
      for (const backup_id of ['000000000900-1000', '000000000950-2000', '000000000060-3000']) {
        const folder = join(data_dir, BACKUPS_FOLDER, backup_id);
        mkdirSync(folder, { recursive: true });
        writeFileSync(join(folder, 'data.mdb'), Buffer.alloc(16));
        const seq = Number(backup_id.slice(0, 12));
        writeFileSync(
          join(folder, 'manifest.json'),
          JSON.stringify({
            format: 1,
            backup_id,
            ledger_seq: seq,
            ledger_hash: 'a'.repeat(64),
            data_bytes: 16,
            data_sha256: 'b'.repeat(64),
            created_at: '2026-11-23T10:00:00.000Z',
          }),
        );
      }
      expect(listBackups(data_dir).map((backup) => backup.backup_id)).toEqual([
        '000000000900-1000',
        '000000000950-2000',
        '000000000060-3000',
      ]);
    } finally {
      rmSync(data_dir, { recursive: true, force: true });
    }
  });
});

describe('restore drills that cannot pass on a lie', () => {
  it('fail naming the seq of a live entry whose data was edited with its stored hash kept, after the backup and then before it', async () => {
    const { society, founder } = await newSociety();
    const early = await joinSociety(society, 'early-bird');
    await backup(founder);
    const late = await joinSociety(society, 'late-bird');
    expect((await drill(founder)).outcome).toBe('passed');

    const late_seq = await seqOf(society, late.id);
    await editEntryKeepingHash(society, late_seq, '"handle":"late-bird"', '"handle":"late-bard"');
    const after = await drill(founder);
    expect(after).toMatchObject({ outcome: 'failed', first_bad_seq: late_seq });
    expect(after.detail).toContain(`seq ${late_seq}`);

    const early_seq = await seqOf(society, early.id);
    await editEntryKeepingHash(society, early_seq, '"handle":"early-bird"', '"handle":"early-bard"');
    const before = await drill(founder);
    expect(before).toMatchObject({ outcome: 'failed', first_bad_seq: early_seq });
    expect(before.detail).toContain(`seq ${early_seq}`);
  });

  it('fail at the first entry whose signature the history cannot carry, when the log, the ledger and so the backup were rewritten together', async () => {
    const { data_dir, store_dir } = await stoppedSociety(['alpha', 'beta']);
    // Start-up (hashes, chain, replay) finds nothing, and the backup copies the lie.
    const victim_seq = await rewriteRegistration(store_dir, 'alpha', 'impostor');
    // The Merkle tree would give the rewrite away at start-up (its last leaf is not the last entry's hash; see the
    // next test): this attacker drops it too, and start-up builds a new one from the rewritten ledger.
    const rewritten = open({ path: store_dir, maxDbs: 8 });
    await rewritten.openDB({ name: 'tree', keyEncoding: 'uint32', encoding: 'binary' }).drop();
    await rewritten.close();

    const society = await startTestSociety({ data_dir });
    societies.push(society);
    const founder = await founderClient(society);
    await backup(founder);
    const result = await drill(founder);
    expect(result).toMatchObject({ outcome: 'failed', first_bad_seq: victim_seq });
    expect(result.detail).toContain('data.handle differs from the signed body');
  });

  it('are not even reached when the log and the ledger are rewritten under the Merkle tree: start-up refuses', async () => {
    const { data_dir, store_dir } = await stoppedSociety(['alpha', 'beta']);
    await rewriteRegistration(store_dir, 'alpha', 'impostor');
    await expect(startTestSociety({ data_dir })).rejects.toThrow(/Merkle tree leaf of this entry is not its hash/);
  });
});

/**
 * The attacker rewrites a logged registration's handle and every stored hash after it: the
 * log regenerates the edited ledger exactly. Returns the seq of the rewritten entry.
 */
async function rewriteRegistration(store_dir: string, handle: string, impostor: string): Promise<number> {
  const root = open({ path: store_dir, maxDbs: 8 });
  const log = root.openDB<string, number>({ name: 'log', keyEncoding: 'uint32', encoding: 'string' });
  for (const { key, value } of Array.from(log.getRange()))
    if (value.includes(`"handle":"${handle}"`))
      log.putSync(key, value.replace(`"handle":"${handle}"`, `"handle":"${impostor}"`));
  const ledger = root.openDB<string, number>({ name: 'ledger', keyEncoding: 'uint32', encoding: 'string' });
  const victim_seq = Array.from(ledger.getRange()).find(({ value }) => value.includes(`"handle":"${handle}"`))!.key;
  await root.close();
  tamperLedger(store_dir, victim_seq, (data) => (data.handle = impostor), 'rechain');
  rebindLogToLedger(store_dir);
  return victim_seq;
}
