import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { open, type RootDatabase } from 'lmdb';
import type { StateImage } from '../state.js';
import { MemoryTable } from './memory_table.js';
import type { Table } from './tables.js';
import { TableStore } from './table_store.js';
import type { ConsumedNonce, KeptAnswerRecord } from './types.js';

export interface LmdbStoreOptions {
  /** Snapshots older than the newest few are deleted; the log keeps everything. */
  snapshots_kept?: number;
  /** Refuse a folder without data.mdb (NoStoreError) instead of making a store there, as lmdb's open would. */
  existing_only?: boolean;
  /**
   * Open for reading only; implies existing_only. Nothing is written into the store's
   * folder (see openReadOnly): a backup or a live store can be checked in place.
   */
  read_only?: boolean;
}

/** The file LMDB keeps everything in; its absence means there is no store. */
export const DATA_FILE = 'data.mdb';
export const LOCK_FILE = 'lock.mdb';

/** A folder asked to hold a store that does not: nothing was created in it. */
export class NoStoreError extends Error {
  override name = 'NoStoreError';
  constructor(readonly path: string) {
    super(`${path} holds no store (no ${DATA_FILE} there)`);
  }
}

/** The databases every Tessera store holds, made on its first open. */
export const STORE_DATABASES = ['log', 'ledger', 'snapshots', 'spent_nonces'] as const;
/** The ledger's Merkle tree, made on the first writable open by a version that keeps it. */
export const TREE_DATABASE = 'tree';
/** The answers kept for retried signed requests (KeptAnswer), made like the tree on a writable open. */
export const ANSWERS_DATABASE = 'answers';

/**
 * The engine's store on LMDB: the four tables of StoreTables as four databases in one
 * environment (snapshots as msgpack). lmdb-js places the writes a tick issues in one
 * synchronous turn in one transaction, so a tick is committed whole or not at all;
 * commits are fsynced before their promise resolves (overlappingSync off), so an
 * answered act is durable.
 */
export class LmdbStore extends TableStore {
  readonly root: RootDatabase;

  /** A scratch folder this store opened through (read-only without a lock file); removed on close. */
  private readonly scratch_dir: string | undefined;

  constructor(
    readonly path: string,
    options: LmdbStoreOptions = {},
  ) {
    const { root, scratch_dir } = openRoot(path, options);
    super(
      {
        log: root.openDB<string | Uint8Array, number>({ name: 'log', keyEncoding: 'uint32', encoding: 'string' }),
        ledger: root.openDB<string, number>({ name: 'ledger', keyEncoding: 'uint32', encoding: 'string' }),
        snapshots: root.openDB<StateImage, number>({ name: 'snapshots', keyEncoding: 'uint32' }),
        spent_nonces: root.openDB<ConsumedNonce[], number>({ name: 'spent_nonces', keyEncoding: 'uint32' }),
        tree: treeTable(root, options),
        answers: answersTable(root, options),
      },
      options.snapshots_kept,
    );
    this.root = root;
    this.scratch_dir = scratch_dir;
  }

  async flushed(): Promise<void> {
    await this.root.flushed;
  }

  async close(): Promise<void> {
    await this.root.flushed;
    await this.root.close();
    if (this.scratch_dir) rmSync(this.scratch_dir, { recursive: true, force: true });
  }
}

/**
 * The tree's database, made on the first writable open. A store written before the
 * tree existed, opened read-only (a backup checked in place), has none: it reads as
 * an empty table, and the engine builds the tree when such a store is served.
 */
function treeTable(root: RootDatabase, options: LmdbStoreOptions): Table<Uint8Array> {
  const exists = Array.from(root.getKeys(), String).includes(TREE_DATABASE);
  if (options.read_only && !exists) return new MemoryTable<Uint8Array>();
  return root.openDB<Uint8Array, number>({ name: TREE_DATABASE, keyEncoding: 'uint32', encoding: 'binary' });
}

/**
 * The answers kept for retried requests, made on the first writable open; a read-only
 * open of a store written before it (a backup checked in place) reads it as empty.
 */
function answersTable(root: RootDatabase, options: LmdbStoreOptions): Table<KeptAnswerRecord, string> {
  const exists = Array.from(root.getKeys(), String).includes(ANSWERS_DATABASE);
  if (options.read_only && !exists) return new MemoryTable<KeptAnswerRecord, string>();
  return root.openDB<KeptAnswerRecord, string>({ name: ANSWERS_DATABASE });
}

/** lmdb's open makes the folder and an empty store in it, so existence is checked first. */
function openRoot(path: string, options: LmdbStoreOptions): { root: RootDatabase; scratch_dir?: string } {
  if ((options.existing_only || options.read_only) && !existsSync(join(path, DATA_FILE))) throw new NoStoreError(path);
  if (!options.read_only) return { root: open({ path, overlappingSync: false, noSync: false, maxDbs: 8 }) };
  const opened = openReadOnly(path);
  try {
    requireDatabases(path, opened.root);
  } catch (error) {
    void opened.root.close();
    if (opened.scratch_dir) rmSync(opened.scratch_dir, { recursive: true, force: true });
    throw error;
  }
  return opened;
}

/** A read-only open cannot create databases; a store lacking one is not a Tessera store. */
function requireDatabases(path: string, root: RootDatabase): void {
  const names = new Set(Array.from(root.getKeys(), String));
  const missing = STORE_DATABASES.filter((name) => !names.has(name));
  if (missing.length > 0)
    throw new Error(
      `${join(path, DATA_FILE)} is an LMDB file but not a Tessera store: it lacks the ${missing.join(', ')} database(s)`,
    );
}

/**
 * Opens a store read-only without writing into its folder. LMDB keeps readers in a
 * lock file beside data.mdb and creates it when absent. Where one exists (a live or
 * once-served store) it is used, so a running server's writer sees this reader.
 * Where none exists (a backup, a copied store) a scratch folder holds a symbolic
 * link to data.mdb and the lock file, so the store's own folder stays as it was;
 * LMDB opens data.mdb itself read-only.
 */
export function openReadOnly(path: string): { root: RootDatabase; scratch_dir?: string } {
  const options = { readOnly: true, maxDbs: 8 } as const;
  if (existsSync(join(path, LOCK_FILE))) return { root: open({ path, ...options }) };
  const scratch_dir = mkdtempSync(join(tmpdir(), 'tessera-read-'));
  try {
    symlinkSync(resolve(path, DATA_FILE), join(scratch_dir, DATA_FILE));
    return { root: open({ path: scratch_dir, ...options }), scratch_dir };
  } catch (error) {
    rmSync(scratch_dir, { recursive: true, force: true });
    throw error;
  }
}
