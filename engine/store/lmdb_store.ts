import { open, type Database, type RootDatabase } from 'lmdb';
import type { TickRecord } from '../apply.js';
import type { LedgerEntry } from '../ledger.js';
import { GENESIS_PREV_HASH, type LedgerHead, type StateImage } from '../state.js';
import type { EngineStore, TickCommit } from './types.js';

export interface LmdbStoreOptions {
  /** Snapshots older than the newest few are deleted; the log keeps everything. */
  snapshots_kept?: number;
}

/**
 * The engine's store on LMDB. Four databases in one environment:
 * log (tick -> TickRecord), ledger (seq -> entry), snapshots (tick -> state image)
 * and nonces (spent nonce -> expiry). Every tick's writes are issued in one
 * synchronous turn, which lmdb-js places in one transaction; commits are fsynced
 * before their promise resolves (overlappingSync off), so an answered act is durable.
 */
export class LmdbStore implements EngineStore {
  readonly root: RootDatabase;
  private readonly log: Database<TickRecord, number>;
  private readonly ledger: Database<LedgerEntry, number>;
  private readonly snapshots: Database<StateImage, number>;
  private readonly nonces: Database<number, string>;
  private readonly snapshots_kept: number;
  /** The head as committed (or queued in commit order); reads never see a later one. */
  private committed_head: LedgerHead;
  private last_logged_tick: number;

  constructor(readonly path: string, options: LmdbStoreOptions = {}) {
    this.root = open({ path, overlappingSync: false, noSync: false, maxDbs: 8 });
    this.log = this.root.openDB({ name: 'log', keyEncoding: 'uint32' });
    this.ledger = this.root.openDB({ name: 'ledger', keyEncoding: 'uint32' });
    this.snapshots = this.root.openDB({ name: 'snapshots', keyEncoding: 'uint32' });
    this.nonces = this.root.openDB({ name: 'nonces' });
    this.snapshots_kept = options.snapshots_kept ?? 3;
    const last = this.lastLedgerEntry();
    this.committed_head = last ? { seq: last.seq, hash: last.hash } : { seq: 0, hash: GENESIS_PREV_HASH };
    const last_record = first(this.log.getKeys({ reverse: true, limit: 1 }));
    this.last_logged_tick = last_record ?? 0;
  }

  commitTick(commit: TickCommit): Promise<void> {
    // Every write below is issued in this one synchronous call, so lmdb-js puts them
    // in the same transaction: a tick is committed whole or not at all.
    let last: Promise<boolean> | undefined;
    if (commit.record) {
      last = this.log.put(commit.record.tick, commit.record);
      this.last_logged_tick = commit.record.tick;
    }
    for (const entry of commit.entries) last = this.ledger.put(entry.seq, entry);
    for (const spent of commit.consumed_nonces) last = this.nonces.put(spent.nonce, spent.expires_at_ms);
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
    return this.log.getRange({ start: tick + 1 }).map(({ value }) => value);
  }

  lastTick(): number {
    return this.last_logged_tick;
  }

  ledgerEntry(seq: number): LedgerEntry | undefined {
    return this.ledger.get(seq);
  }

  /** The durable head: what a reader may be shown. */
  ledgerHead(): LedgerHead {
    return { ...this.committed_head };
  }

  /** Entries from..from+limit-1 that are committed, in order. */
  ledgerPage(from: number, limit: number): LedgerEntry[] {
    const end = Math.min(from + limit - 1, this.committed_head.seq);
    if (end < from) return [];
    return Array.from(this.ledger.getRange({ start: from, end: end + 1 }), ({ value }) => value);
  }

  /** Spent nonces past their expiry can never be presented again; drop them. */
  pruneSpentNonces(now_ms: number): number {
    let pruned = 0;
    for (const { key, value } of this.nonces.getRange()) {
      if (value < now_ms) {
        void this.nonces.remove(key);
        pruned++;
      }
    }
    return pruned;
  }

  isNonceSpent(nonce: string): boolean {
    return this.nonces.get(nonce) !== undefined;
  }

  async close(): Promise<void> {
    await this.root.flushed;
    await this.root.close();
  }

  private lastLedgerEntry(): LedgerEntry | undefined {
    return first(this.ledger.getRange({ reverse: true, limit: 1 }))?.value;
  }
}

function first<T>(items: Iterable<T>): T | undefined {
  for (const item of items) return item;
  return undefined;
}
