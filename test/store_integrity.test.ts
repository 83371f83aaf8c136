import { randomBytes } from 'node:crypto';
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChildServer } from './helpers/child_server.js';
import { tempDir } from './helpers/society.js';
import {
  firstEntrySeq,
  folderState,
  runOperator,
  startExpectingRefusal,
  startInProcess,
  rebindLogToLedger,
  stoppedSociety,
  tamperLedger,
} from './helpers/stores.js';

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

type Stopped = Awaited<ReturnType<typeof stoppedSociety>>;
const originals: { plain?: Stopped; snapshotted?: Stopped } = {};
beforeAll(async () => {
  originals.plain = await stoppedSociety(['alpha', 'beta', 'gamma']);
  originals.snapshotted = await stoppedSociety(['alpha', 'beta', 'gamma'], { snapshot_every_ticks: 1 });
  made.push(originals.plain.data_dir, originals.snapshotted.data_dir);
});

/** A fresh copy of a society that ran and stopped (one without snapshots, or one with a snapshot every tick). */
function society(kind: 'plain' | 'snapshotted' = 'plain') {
  const original = originals[kind]!;
  const data_dir = tempDir();
  made.push(data_dir);
  cpSync(original.data_dir, data_dir, { recursive: true });
  const store_dir = join(data_dir, 'store');
  return { data_dir, store_dir, head_seq: original.head_seq, victim_seq: firstEntrySeq(store_dir, 'agent_registered') };
}

const renameVictim = (data: Record<string, unknown>) => {
  data.handle = 'impostor';
};

describe('a tampered ledger entry', () => {
  for (const mode of ['keep_hash', 'rehash', 'rechain'] as const) {
    it(`fails replay and start-up at its seq when its data is edited (${mode})`, async () => {
      const { data_dir, store_dir, victim_seq } = society();
      tamperLedger(store_dir, victim_seq, renameVictim, mode);

      const replay = await runOperator(['replay', data_dir]);
      expect(replay.code).toBe(1);
      expect(JSON.parse(replay.stdout)).toMatchObject({ ok: false, first_bad_seq: victim_seq });
      expect(replay.stderr).toContain(`seq ${victim_seq}`);

      const before = folderState(data_dir);
      // One of them as the operator meets it, a process that exits 1; the others in this process, saying the same.
      const start = await (mode === 'keep_hash' ? startExpectingRefusal : startInProcess)({ DATA_DIR: data_dir });
      expect(start.served).toBe(false);
      expect([start.code, start.signal]).toEqual([1, null]);
      expect(start.stderr).toContain(`tessera refused to start: ledger entry seq ${victim_seq}:`);
      expect(folderState(data_dir)).toEqual(before);
    });
  }

  it('is found by start-up where a snapshot stands for it, naming its seq', async () => {
    const { data_dir, store_dir, victim_seq } = society('snapshotted');
    tamperLedger(store_dir, victim_seq, renameVictim, 'keep_hash');
    const start = await startInProcess({ DATA_DIR: data_dir });
    expect(start.served).toBe(false);
    expect(start.code).toBe(1);
    expect(start.stderr).toContain(`ledger entry seq ${victim_seq}: hash is not the SHA-256 of the entry's content`);
  });

  it("is found by replay's proof check when the log and the ledger were rewritten together", async () => {
    const { data_dir, store_dir, victim_seq } = society();
    // The attacker edits the logged act and every stored hash after it: the log regenerates the edited
    // ledger exactly, so only the member's signature over the original body can tell.
    const root = open({ path: store_dir, maxDbs: 8 });
    const log = root.openDB<string, number>({ name: 'log', keyEncoding: 'uint32', encoding: 'string' });
    for (const { key, value } of Array.from(log.getRange()))
      if (value.includes('"handle":"alpha"'))
        log.putSync(key, value.replace('"handle":"alpha"', '"handle":"impostor"'));
    await root.close();
    tamperLedger(store_dir, victim_seq, renameVictim, 'rechain');
    rebindLogToLedger(store_dir);

    const replay = await runOperator(['replay', data_dir]);
    expect(replay.code).toBe(1);
    expect(JSON.parse(replay.stdout)).toMatchObject({
      ok: false,
      first_bad_seq: victim_seq,
      reason: 'data.handle differs from the signed body',
    });
  });

  it('leaves an untouched store passing replay and start-up', async () => {
    const { data_dir, head_seq } = society('snapshotted');
    const replay = await runOperator(['replay', data_dir]);
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({ ok: true, entries_checked: head_seq, proofs_checked: true });
    expect(replay.stderr).toContain('a data folder');
    const start = await startInProcess({ DATA_DIR: data_dir });
    expect(start.served).toBe(true);
  });
});

describe('a damaged store', () => {
  const damages: [string, (file: string) => void, RegExp][] = [
    ['zero-length', (file) => writeBytes(file, Buffer.alloc(0)), /data\.mdb is empty \(0 bytes\)/],
    [
      'truncated to its first 8 KB',
      (file) => writeBytes(file, readBytes(file).subarray(0, 8192)),
      /data\.mdb is truncated: its header points at page \d+, but the file holds only 2 pages/,
    ],
    ['garbage', (file) => writeBytes(file, randomBytesOf(256 * 1024)), /data\.mdb is not an LMDB store/],
    // Garbage pages behind intact headers kill the probe (SIGBUS, SIGSEGV, or SIGABRT from an LMDB assertion), make LMDB refuse them (MDB_PAGE_NOTFOUND,
    // MDB_CORRUPTED), or, as the random bytes fall, leave an LMDB file whose Tessera databases or records do not read.
    [
      'overwritten after its header pages',
      (file) =>
        writeBytes(
          file,
          Buffer.concat([readBytes(file).subarray(0, 8192), randomBytesOf(readBytes(file).length - 8192)]),
        ),
      /data\.mdb (is damaged: reading it killed the checking process \(SIG(BUS|SEGV|ABRT)\)|cannot be read: )/,
    ],
  ];
  for (const [name, damage, message] of damages) {
    it(`is refused at start-up, named, with nothing written (${name})`, async () => {
      const { data_dir, store_dir } = society();
      damage(join(store_dir, 'data.mdb'));
      const before = folderState(data_dir);
      const start = await startExpectingRefusal({ DATA_DIR: data_dir });
      expect(start.served).toBe(false);
      expect([start.code, start.signal]).toEqual([1, null]);
      expect(start.stderr).toMatch(message);
      expect(start.stderr).toContain(join(store_dir, 'data.mdb'));
      expect(folderState(data_dir)).toEqual(before);

      const replay = await runOperator(['replay', data_dir]);
      expect([replay.code, replay.signal]).toEqual([1, null]);
      expect(replay.stderr).toMatch(message);
      expect(folderState(data_dir)).toEqual(before);
    });
  }

  it('is refused at start-up and by replay, named, when a snapshot record is damaged so that it no longer decodes', async () => {
    const { data_dir, store_dir } = society('snapshotted');
    const root = open({ path: store_dir, maxDbs: 8 });
    const snapshots = root.openDB<Buffer, number>({ name: 'snapshots', keyEncoding: 'uint32', encoding: 'binary' });
    const tick = Array.from(snapshots.getKeys()).at(-1)!;
    const damaged = Buffer.from(snapshots.get(tick)!);
    for (let at = 40; at < 60; at++) damaged[at]! ^= 0xff;
    snapshots.putSync(tick, damaged);
    await root.close();
    const message = `${join(store_dir, 'data.mdb')} cannot be read: the snapshot of tick ${tick} does not decode`;

    const start = await startInProcess({ DATA_DIR: data_dir });
    expect([start.served, start.code]).toEqual([false, 1]);
    expect(start.stderr).toContain(`tessera refused to start: ${message}`);
    const replay = await runOperator(['replay', data_dir]);
    expect(replay.code).toBe(1);
    expect(replay.stderr).toContain(message);
  });

  for (const trace of ['founder.key.json', 'cookie.secret', 'backups']) {
    it(`is never replaced by a new society when the store is missing beside ${trace}`, async () => {
      const { data_dir } = society();
      rmSync(join(data_dir, 'store'), { recursive: true });
      for (const other of ['founder.key.json', 'cookie.secret'])
        if (other !== trace) rmSync(join(data_dir, other), { force: true });
      if (trace === 'backups') mkdirSync(join(data_dir, 'backups'));
      const before = folderState(data_dir);
      const start = await startInProcess({ DATA_DIR: data_dir });
      expect(start.served).toBe(false);
      expect(start.code).toBe(1);
      // The log key is a trace too (it is left in place here, beside the one named).
      expect(start.stderr).toContain(`${join(data_dir, 'store', 'data.mdb')} is missing, but ${data_dir} holds `);
      expect(start.stderr).toMatch(new RegExp(`holds [^:]*\\b${trace.replace('.', '\\.')}\\b`));
      expect(folderState(data_dir)).toEqual(before);
    });
  }

  it('refuses a store/ that is a file, and a DATA_DIR that is a file, naming them', async () => {
    const { data_dir } = society();
    const store_dir = join(data_dir, 'store');
    rmSync(store_dir, { recursive: true });
    writeFileSync(store_dir, 'not a folder');
    const start = await startInProcess({ DATA_DIR: data_dir });
    expect([start.served, start.code]).toEqual([false, 1]);
    expect(start.stderr).toContain(`tessera refused to start: ${store_dir} is not a folder`);

    const file = join(data_dir, 'founder.key.json');
    const as_data_dir = await startInProcess({ DATA_DIR: file });
    expect([as_data_dir.served, as_data_dir.code]).toEqual([false, 1]);
    expect(as_data_dir.stderr).toContain(`tessera refused to start: DATA_DIR ${file} is not a folder`);
  });

  it('still lets a new society be founded in an empty data folder', async () => {
    const data_dir = tempDir();
    made.push(data_dir);
    const start = await startInProcess({ DATA_DIR: data_dir });
    expect(start.served).toBe(true);
  });
});

describe('the data folder while a server serves it', () => {
  it('refuses a second server on the same folder, and lets the next start take over after a SIGKILL', async () => {
    const { data_dir } = society();
    const first = await startChildServer({ DATA_DIR: data_dir });
    try {
      const second = await startInProcess({ DATA_DIR: data_dir });
      expect(second.served).toBe(false);
      expect(second.code).toBe(1);
      expect(second.stderr).toContain(`${data_dir} is served by another process (pid ${first.process.pid}`);
      expect((await fetch(`${first.url}/healthz`)).status).toBe(200);
    } finally {
      await first.kill('SIGKILL');
    }
    const next = await startInProcess({ DATA_DIR: data_dir });
    expect(next.served).toBe(true);
  });

  it('starts on a store whose lock file is garbage: LMDB rebuilds its reader table', async () => {
    const { data_dir, store_dir } = society();
    writeBytes(join(store_dir, 'lock.mdb'), randomBytesOf(8272));
    const start = await startExpectingRefusal({ DATA_DIR: data_dir });
    expect(start.served).toBe(true);
  });
});

describe('tessera-operator replay on paths that hold no store', () => {
  it('refuses a path that does not exist, creating nothing', async () => {
    const parent = tempDir();
    made.push(parent);
    const missing = join(parent, 'no-such-folder');
    const replay = await runOperator(['replay', missing]);
    expect(replay.code).toBe(1);
    expect(replay.stderr).toContain(`${missing} holds no store`);
    expect(folderState(parent)).toEqual({});
  });

  it('refuses an empty folder, leaving it empty', async () => {
    const empty = tempDir();
    made.push(empty);
    const replay = await runOperator(['replay', empty]);
    expect(replay.code).toBe(1);
    expect(replay.stderr).toContain(`${empty} holds no store`);
    expect(folderState(empty)).toEqual({});
  });

  it('reads a backup folder in place without writing into it', async () => {
    const { store_dir, head_seq } = society();
    const backup = tempDir();
    made.push(backup);
    const root = open({ path: store_dir, maxDbs: 8, readOnly: true });
    await root.backup(backup, false);
    await root.close();
    const before = folderState(backup);
    expect(Object.keys(before)).toEqual(['data.mdb']);
    const replay = await runOperator(['replay', backup]);
    expect(replay.code).toBe(0);
    expect(replay.stderr).toContain('a store folder');
    expect(JSON.parse(replay.stdout)).toMatchObject({ ok: true, ledger_seq: head_seq });
    expect(folderState(backup)).toEqual(before);
  });
});

const readBytes = (file: string): Buffer => readFileSync(file);
const writeBytes = (file: string, bytes: Buffer): void => writeFileSync(file, bytes);
const randomBytesOf = (length: number): Buffer => randomBytes(length);
