import { open, type Database, type RootDatabase } from 'lmdb';
import type { TickRecord } from '../apply.js';
import { GENESIS_PREV_HASH, type LedgerHead, type StateImage } from '../state.js';
import type { ConsumedNonce, EngineStore, TickCommit } from './types.js';

export interface LmdbStoreOptions {
  /** Snapshots older than the newest few are deleted; the log keeps everything. */
  snapshots_kept?: number;
  /** Opens for reading only (a restore drill reads the live store from another process). */
  read_only?: boolean;
}

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

  constructor(readonly path: string, options: LmdbStoreOptions = {}) {
    this.root = open({ path, overlappingSync: false, noSync: false, maxDbs: 8, readOnly: options.read_only ?? false });
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

  ticksAfter(tick: number): Iterable<TickRecord> {
    return this.log.getRange({ start: tick + 1 }).map(({ value }) => JSON.parse(value) as TickRecord);
  }

  lastTick(): number {
    return this.last_logged_tick;
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
  }

}

function first<T>(items: Iterable<T>): T | undefined {
  for (const item of items) return item;
  return undefined;
}
