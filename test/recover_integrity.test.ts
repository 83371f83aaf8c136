import { cpSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreIntegrityError } from '../engine/ledger_integrity.js';
import { recoverState } from '../engine/recover.js';
import type { StateImage } from '../engine/state.js';
import { LmdbStore, NoStoreError } from '../engine/store/lmdb_store.js';
import { tempDir } from './helpers/society.js';
import { firstEntrySeq, folderState, rebindLogToLedger, stoppedSociety, tamperLedger } from './helpers/stores.js';

const made: string[] = [];
let original: Awaited<ReturnType<typeof stoppedSociety>>;
beforeAll(async () => {
  // A snapshot every tick: start-up regenerates almost nothing and must check the stored chain itself.
  original = await stoppedSociety(['alpha', 'beta', 'gamma'], { snapshot_every_ticks: 1 });
  made.push(original.data_dir);
});
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

function storeCopy(): { store_dir: string; victim_seq: number } {
  const data_dir = tempDir();
  made.push(data_dir);
  cpSync(original.data_dir, data_dir, { recursive: true });
  const store_dir = join(data_dir, 'store');
  return { store_dir, victim_seq: firstEntrySeq(store_dir, 'agent_registered') };
}

async function recoveryError(store_dir: string, use_snapshot = true): Promise<StoreIntegrityError> {
  const store = new LmdbStore(store_dir, { read_only: true });
  try {
    recoverState(store, { use_snapshot });
  } catch (error) {
    expect(error).toBeInstanceOf(StoreIntegrityError);
    return error as StoreIntegrityError;
  } finally {
    await store.close();
  }
  throw new Error('the store recovered');
}

function editLedger(store_dir: string, change: (ledger: ReturnType<ReturnType<typeof open>['openDB']>) => void): void {
  const root = open({ path: store_dir, maxDbs: 8 });
  change(root.openDB<string, number>({ name: 'ledger', keyEncoding: 'uint32', encoding: 'string' }));
  void root.close();
}

const rename = (data: Record<string, unknown>) => {
  data.handle = 'impostor';
};

describe('recovering a store whose ledger was edited', () => {
  it('recovers an untouched store from its snapshot to the same state as a full replay', async () => {
    const store = new LmdbStore(join(original.data_dir, 'store'), { read_only: true });
    try {
      expect(store.latestSnapshot()).toBeDefined();
      expect(recoverState(store).ledger_head).toEqual(recoverState(store, { use_snapshot: false }).ledger_head);
    } finally {
      await store.close();
    }
  });

  it('names the entry after a rehashed one, where only the chain stands for it', async () => {
    const { store_dir, victim_seq } = storeCopy();
    tamperLedger(store_dir, victim_seq, rename, 'rehash');
    const error = await recoveryError(store_dir);
    expect([error.seq, error.reason]).toEqual([
      victim_seq + 1,
      `prev_hash does not link to the hash of entry ${victim_seq} (entry ${victim_seq} or this one was rewritten)`,
    ]);
  });

  it('refuses a chain rewritten up to the snapshot, and a full replay names the edited entry', async () => {
    const { store_dir, victim_seq } = storeCopy();
    tamperLedger(store_dir, victim_seq, rename, 'rechain');
    const error = await recoveryError(store_dir);
    expect(error.reason).toMatch(/differs from the head recorded by the snapshot of tick \d+/);
    // The victim's log record names its entry by the hash it was written with.
    const replayed = await recoveryError(store_dir, false);
    expect(replayed.seq).toBe(victim_seq);
    expect(replayed.reason).toMatch(
      /takes an action's proof from this entry, written with hash [0-9a-f]{64}; the stored entry's is/,
    );
    // An attacker who rewrites those names too: the entry the logged act produces tells.
    rebindLogToLedger(store_dir);
    const rebound = await recoveryError(store_dir, false);
    expect([rebound.seq, rebound.reason]).toEqual([
      victim_seq,
      'the stored entry differs from the one its logged act produces in data, hash (its stored hash was recomputed to match the edit)',
    ]);
  });

  it('names a deleted entry as missing', async () => {
    const { store_dir, victim_seq } = storeCopy();
    editLedger(store_dir, (ledger) => ledger.removeSync(victim_seq));
    const error = await recoveryError(store_dir);
    expect([error.seq, error.reason]).toEqual([
      victim_seq,
      `missing from the store (the next stored entry is seq ${victim_seq + 1})`,
    ]);
  });

  it('refuses an entry appended that no logged act produced', async () => {
    const { store_dir } = storeCopy();
    const head = original.head_seq;
    editLedger(store_dir, (ledger) =>
      ledger.putSync(head + 1, (ledger.get(head) as string).replace(`"seq":${head}`, `"seq":${head + 1}`)),
    );
    const error = await recoveryError(store_dir);
    expect([error.seq, error.reason]).toEqual([
      head + 1,
      `the store holds entries up to seq ${head + 1} but the log (up to tick ${error.reason.match(/tick (\d+)/)![1]}) produces only ${head}`,
    ]);
  });

  it('names the seq where an edited log record stops replaying', async () => {
    const { store_dir, victim_seq } = storeCopy();
    const root = open({ path: store_dir, maxDbs: 8 });
    const log = root.openDB<string, number>({ name: 'log', keyEncoding: 'uint32', encoding: 'string' });
    for (const { key, value } of Array.from(log.getRange()))
      if (value.includes('"handle":"alpha"'))
        log.putSync(key, value.replace('"act":"register"', '"act":"no_such_act"'));
    await root.close();
    const error = await recoveryError(store_dir, false);
    expect(error.seq).toBe(victim_seq);
    expect(error.reason).toMatch(/^the log after tick \d+ does not replay: not a write act in the engine: no_such_act/);
  });
});

/** Edits the newest snapshot only, as an attacker would: the ledger and the log stay as they were. */
function editNewestSnapshot(store_dir: string, edit: (image: StateImage) => void): number {
  const root = open({ path: store_dir, maxDbs: 8 });
  const snapshots = root.openDB<StateImage, number>({ name: 'snapshots', keyEncoding: 'uint32' });
  try {
    const newest = Array.from(snapshots.getRange({ reverse: true, limit: 1 }))[0]!;
    edit(newest.value);
    snapshots.putSync(newest.key, newest.value);
    return newest.key;
  } finally {
    void root.close();
  }
}

describe('recovering a store whose snapshot was edited', () => {
  const impostor = (image: StateImage) => {
    image.agents.find((agent) => agent.handle === 'alpha')!.handle = 'impostor';
  };

  it('refuses a newest snapshot that is not the state the log produces', async () => {
    const { store_dir } = storeCopy();
    const tick = editNewestSnapshot(store_dir, impostor);
    const error = await recoveryError(store_dir);
    expect(error.reason).toMatch(
      new RegExp(`^the snapshot of tick ${tick} is not the state the log produces at that tick`),
    );
  });

  it('a full replay refuses every stored snapshot the log does not produce', async () => {
    const { store_dir } = storeCopy();
    const tick = editNewestSnapshot(store_dir, impostor);
    const error = await recoveryError(store_dir, false);
    expect(error.reason).toMatch(
      new RegExp(`^the snapshot of tick ${tick} is not the state the log produces at that tick`),
    );
  });
});

describe('opening a store without creating one', () => {
  it('refuses a folder without data.mdb, read-only or existing-only, and creates nothing', () => {
    const empty = tempDir();
    made.push(empty);
    expect(() => new LmdbStore(empty, { read_only: true })).toThrow(NoStoreError);
    expect(() => new LmdbStore(join(empty, 'store'), { existing_only: true })).toThrow(
      `${join(empty, 'store')} holds no store (no data.mdb there)`,
    );
    expect(folderState(empty)).toEqual({});
  });
});
