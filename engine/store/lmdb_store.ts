import { existsSync, mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { open, type Database, type RootDatabase } from 'lmdb';
import type { TickRecord } from '../apply.js';
import type { StoredEntry } from '../ledger_integrity.js';
import { GENESIS_PREV_HASH, type LedgerHead, type StateImage } from '../state.js';
import type { ConsumedNonce, EngineStore, TickCommit } from './types.js';

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

/**
 * The engine's store on LMDB. Four databases in one environment:
 * log (tick -> TickRecord as JSON), ledger (seq -> the entry's served JSON),
 * snapshots (tick -> state image, msgpack) and spent_nonces (commit number -> the
 * nonces that commit spent, with their expiry; one record per commit, not per nonce).
 * Log and ledger hold JSON text: it is what was hashed and what is served, and
 * V8's JSON is faster than any re-encoding for these string-heavy records. Every tick's writes are issued in one
 * synchronous turn, which lmdb-js places in one transaction; commits are fsynced
 * before their promise resolves (overlappingSync off), so an answered act is durable.
 */
export class LmdbStore implements EngineStore {
  readonly root: RootDatabase;
  private readonly log: Database<string, number>;
  private readonly ledger: Database<string, number>;
  private readonly snapshots: Database<StateImage, number>;
  private readonly spent_nonces: Database<ConsumedNonce[], number>;
  private next_nonce_record: number;
  private readonly snapshots_kept: number;
  /** The head as committed (or queued in commit order); reads never see a later one. */
  private committed_head: LedgerHead;
  private last_logged_tick: number;

  /** A scratch folder this store opened through (read-only without a lock file); removed on close. */
  private readonly scratch_dir: string | undefined;

  constructor(readonly path: string, options: LmdbStoreOptions = {}) {
    // lmdb's open makes the folder and an empty store in it, so existence is checked first.
    if ((options.existing_only || options.read_only) && !existsSync(join(path, DATA_FILE))) throw new NoStoreError(path);
    if (options.read_only) {
      const opened = openReadOnly(path);
      this.root = opened.root;
      this.scratch_dir = opened.scratch_dir;
      try {
        this.requireDatabases();
      } catch (error) {
        void this.root.close();
        if (this.scratch_dir) rmSync(this.scratch_dir, { recursive: true, force: true });
        throw error;
      }
    } else {
      this.root = open({ path, overlappingSync: false, noSync: false, maxDbs: 8 });
    }
    this.log = this.root.openDB({ name: 'log', keyEncoding: 'uint32', encoding: 'string' });
    this.ledger = this.root.openDB({ name: 'ledger', keyEncoding: 'uint32', encoding: 'string' });
    this.snapshots = this.root.openDB({ name: 'snapshots', keyEncoding: 'uint32' });
    this.spent_nonces = this.root.openDB({ name: 'spent_nonces', keyEncoding: 'uint32' });
    this.next_nonce_record = (first(this.spent_nonces.getKeys({ reverse: true, limit: 1 })) ?? 0) + 1;
    this.snapshots_kept = options.snapshots_kept ?? 3;
    const last_seq = first(this.ledger.getKeys({ reverse: true, limit: 1 }));
    this.committed_head = last_seq === undefined ? { seq: 0, hash: GENESIS_PREV_HASH } : { seq: last_seq, hash: this.ledgerHash(last_seq)! };
    const last_record = first(this.log.getKeys({ reverse: true, limit: 1 }));
    this.last_logged_tick = last_record ?? 0;
  }

  commitTick(commit: TickCommit): Promise<void> {
    // Every write below is issued in this one synchronous call, so lmdb-js puts them
    // in the same transaction: a tick is committed whole or not at all.
    let last: Promise<boolean> | undefined;
    if (commit.record) {
      last = this.log.put(commit.record.tick, JSON.stringify(commit.record));
      this.last_logged_tick = commit.record.tick;
    }
    for (const entry of commit.entries) last = this.ledger.put(entry.seq, entry.json);
    if (commit.consumed_nonces.length > 0) last = this.spent_nonces.put(this.next_nonce_record++, commit.consumed_nonces);
    if (commit.snapshot) {
      last = this.snapshots.put(commit.snapshot.tick, commit.snapshot);
      const kept = Array.from(this.snapshots.getKeys({ reverse: true, limit: this.snapshots_kept }));
      const oldest_kept = kept[kept.length - 1];
      if (oldest_kept !== undefined) {
        for (const tick of this.snapshots.getKeys({ end: oldest_kept })) last = this.snapshots.remove(tick);
      }
    }
    const tail = commit.entries[commit.entries.length - 1];
    if (!last) return Promise.resolve();
    return last.then(() => {
      if (tail && tail.seq > this.committed_head.seq) this.committed_head = { seq: tail.seq, hash: tail.hash };
    });
  }

  async flushed(): Promise<void> {
    await this.root.flushed;
  }

  latestSnapshot(): StateImage | undefined {
    const newest = first(this.snapshots.getRange({ reverse: true, limit: 1 }));
    return newest?.value;
  }

  snapshotTicks(): number[] {
    return Array.from(this.snapshots.getKeys());
  }

  snapshotAt(tick: number): StateImage | undefined {
    return this.snapshots.get(tick);
  }

  ticksAfter(tick: number): Iterable<TickRecord> {
    return this.log.getRange({ start: tick + 1 }).map(({ value }) => JSON.parse(value) as TickRecord);
  }

  lastTick(): number {
    return this.last_logged_tick;
  }

  ledgerJson(seq: number): string | undefined {
    return this.ledger.get(seq);
  }

  ledgerEntries(from: number): Iterable<StoredEntry> {
    return this.ledger.getRange({ start: from }).map(({ key, value }) => ({ seq: key, json: value }));
  }

  /** Every stored entry ends with "hash":"<64 hex>"} by construction (see chainEntry). */
  ledgerHash(seq: number): string | undefined {
    const json = this.ledger.get(seq);
    return json === undefined ? undefined : json.slice(-66, -2);
  }

  /** The durable head: what a reader may be shown. */
  ledgerHead(): LedgerHead {
    return { ...this.committed_head };
  }

  /** The served JSON of entries from..from+limit-1 that are committed, in order. */
  ledgerPage(from: number, limit: number): string[] {
    const end = Math.min(from + limit - 1, this.committed_head.seq);
    if (end < from) return [];
    return Array.from(this.ledger.getRange({ start: from, end: end + 1 }), ({ value }) => value);
  }

  /** Records whose nonces have all expired can never matter again; drop them. */
  pruneSpentNonces(now_ms: number): number {
    let pruned = 0;
    for (const { key, value } of this.spent_nonces.getRange()) {
      if (value.every((spent) => spent.expires_at_ms < now_ms)) {
        void this.spent_nonces.remove(key);
        pruned++;
      }
    }
    return pruned;
  }

  /** Every spent nonce on record, oldest first (an audit read; not on any hot path). */
  *spentNonces(): Iterable<ConsumedNonce> {
    for (const { value } of this.spent_nonces.getRange()) yield* value;
  }

  async close(): Promise<void> {
    await this.root.flushed;
    await this.root.close();
    if (this.scratch_dir) rmSync(this.scratch_dir, { recursive: true, force: true });
  }

  /** A read-only open cannot create databases; a store lacking one is not a Tessera store. */
  private requireDatabases(): void {
    const names = new Set(Array.from(this.root.getKeys(), String));
    const missing = STORE_DATABASES.filter((name) => !names.has(name));
    if (missing.length > 0) throw new Error(`${join(this.path, DATA_FILE)} is an LMDB file but not a Tessera store: it lacks the ${missing.join(', ')} database(s)`);
  }

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

function first<T>(items: Iterable<T>): T | undefined {
  for (const item of items) return item;
  return undefined;
}
