import type { TickRecord } from '../apply.js';
import { storedHashOf, type StoredEntry } from '../ledger_integrity.js';
import { leafHashesFrom, leavesIn, recordsOf } from '../log/tree_batches.js';
import { GENESIS_PREV_HASH, type LedgerHead, type StateImage } from '../state.js';
import { parseRecord, RecordWriter } from './record_bytes.js';
import type { StoreTables } from './tables.js';
import type { ConsumedNonce, EngineStore, KeptAnswerRecord, TickCommit } from './types.js';

/**
 * The engine's store over four ordered tables, written once for every medium: LMDB
 * (lmdb_store.ts) and memory (memory_store.ts) differ only in their tables and in
 * what "durable" means. Log and ledger hold JSON text: it is what was hashed and what
 * is served, and V8's JSON is faster than any re-encoding for these string-heavy
 * records. Every tick's writes are issued in one synchronous call (LMDB places them
 * in one transaction), and only the last one's promise is awaited: a medium resolves
 * its writes in the order they were issued.
 */
export abstract class TableStore implements EngineStore {
  private next_nonce_record: number;
  private readonly snapshots_kept: number;
  /** The head as committed (or queued in commit order); reads never see a later one. */
  private committed_head: LedgerHead;
  private last_logged_tick: number;
  private readonly records = new RecordWriter();

  protected constructor(
    private readonly tables: StoreTables,
    snapshots_kept = 3,
  ) {
    this.next_nonce_record = (first(tables.spent_nonces.getKeys({ reverse: true, limit: 1 })) ?? 0) + 1;
    this.snapshots_kept = snapshots_kept;
    const last_seq = first(tables.ledger.getKeys({ reverse: true, limit: 1 }));
    this.committed_head =
      last_seq === undefined
        ? { seq: 0, hash: GENESIS_PREV_HASH }
        : { seq: last_seq, hash: this.ledgerHash(last_seq)! };
    this.last_logged_tick = first(tables.log.getKeys({ reverse: true, limit: 1 })) ?? 0;
  }

  abstract flushed(): Promise<void>;

  commitTick(commit: TickCommit): Promise<void> {
    const { log, ledger, snapshots, spent_nonces, tree, answers } = this.tables;
    let last: Promise<boolean> | undefined;
    if (commit.record) {
      last = log.put(commit.record.tick, this.records.bytes(commit.record, commit.entries));
      this.last_logged_tick = commit.record.tick;
    }
    for (const entry of commit.entries) last = ledger.put(entry.seq, entry.json);
    if (commit.tree_hashes.length > 0) {
      const first_leaf = commit.entries[0]!.seq - 1;
      if (leavesIn(first_leaf, commit.tree_hashes) !== commit.entries.length)
        throw new Error('a tick commit carries the tree hashes of every entry, or none');
      for (const { leaf, record } of recordsOf(first_leaf, commit.tree_hashes)) last = tree.put(leaf, record);
    }
    if (commit.consumed_nonces.length > 0) last = spent_nonces.put(this.next_nonce_record++, commit.consumed_nonces);
    for (const kept of commit.kept_answers ?? []) last = answers.put(kept.key, kept.record);
    if (commit.snapshot) {
      const { tick } = commit.snapshot;
      last = snapshots.put(tick, commit.snapshot);
      // Snapshots older than the newest few go; the log keeps everything. The older ones
      // kept are read below the new tick: LMDB's reads do not see a write still pending.
      const older_wanted = this.snapshots_kept - 1;
      const older_kept =
        older_wanted > 0 ? Array.from(snapshots.getKeys({ start: tick - 1, reverse: true, limit: older_wanted })) : [];
      const oldest_kept = older_kept.length < older_wanted ? undefined : (older_kept.at(-1) ?? tick);
      if (oldest_kept !== undefined) {
        for (const old of snapshots.getKeys({ end: oldest_kept })) last = snapshots.remove(old);
      }
    }
    const tail = commit.entries[commit.entries.length - 1];
    if (!last) return Promise.resolve();
    return last.then(() => {
      if (tail && tail.seq > this.committed_head.seq) this.committed_head = { seq: tail.seq, hash: tail.hash };
    });
  }

  latestSnapshot(): StateImage | undefined {
    return first(this.tables.snapshots.getRange({ reverse: true, limit: 1 }))?.value;
  }

  snapshotTicks(): number[] {
    return Array.from(this.tables.snapshots.getKeys());
  }

  snapshotAt(tick: number): StateImage | undefined {
    return this.tables.snapshots.get(tick);
  }

  *ticksAfter(tick: number): Iterable<TickRecord> {
    const ledgerJson = (seq: number) => this.ledgerJson(seq);
    for (const { value } of this.tables.log.getRange({ start: tick + 1 }))
      yield parseRecord(typeof value === 'string' ? value : utf8.decode(value), ledgerJson);
  }

  lastTick(): number {
    return this.last_logged_tick;
  }

  ledgerJson(seq: number): string | undefined {
    return this.tables.ledger.get(seq);
  }

  *ledgerEntries(from: number): Iterable<StoredEntry> {
    for (const { key, value } of this.tables.ledger.getRange({ start: from })) yield { seq: key, json: value };
  }

  ledgerHash(seq: number): string | undefined {
    const json = this.tables.ledger.get(seq);
    return json === undefined ? undefined : storedHashOf(json);
  }

  /** The durable head: what a reader may be shown. */
  ledgerHead(): LedgerHead {
    return { ...this.committed_head };
  }

  /** The served JSON of entries from..from+limit-1 that are committed, in order. */
  ledgerPage(from: number, limit: number): string[] {
    const end = Math.min(from + limit - 1, this.committed_head.seq);
    if (end < from) return [];
    return Array.from(this.tables.ledger.getRange({ start: from, end: end + 1 }), ({ value }) => value);
  }

  treeLeafCount(): number {
    const last = this.lastTreeRecord();
    return last === undefined ? 0 : last.key + leavesIn(last.key, last.value);
  }

  /**
   * The tree record filed last. lmdb-js never yields a uint32 key 0 when it iterates in
   * reverse (its default lower bound is that key, exclusive), and the first record is
   * filed under leaf 0: so that one is read directly.
   */
  private lastTreeRecord(): { key: number; value: Uint8Array } | undefined {
    const found = first(this.tables.tree.getRange({ reverse: true, limit: 1 }));
    if (found) return found;
    const at_zero = this.tables.tree.get(0);
    return at_zero === undefined ? undefined : { key: 0, value: at_zero };
  }

  treeRecord(leaf: number): Uint8Array | undefined {
    return leafHashesFrom((key) => this.tables.tree.get(key), leaf);
  }

  appendTreeHashes(first_leaf: number, hashes: Uint8Array): Promise<void> {
    let last: Promise<boolean> | undefined;
    for (const { leaf, record } of recordsOf(first_leaf, hashes)) last = this.tables.tree.put(leaf, record);
    return last ? last.then(() => undefined) : Promise.resolve();
  }

  /** Records whose nonces have all expired can never matter again; drop them. */
  pruneSpentNonces(now_ms: number): number {
    let pruned = 0;
    for (const { key, value } of this.tables.spent_nonces.getRange()) {
      if (value.every((spent) => spent.expires_at_ms < now_ms)) {
        void this.tables.spent_nonces.remove(key);
        pruned++;
      }
    }
    return pruned;
  }

  /** The answer kept under this key, if it is still kept. */
  keptAnswer(key: string): KeptAnswerRecord | undefined {
    return this.tables.answers.get(key);
  }

  /** Drops the kept answers whose nonces expired before now: their keys start with the expiry. */
  pruneKeptAnswers(now_ms: number): number {
    let pruned = 0;
    for (const key of this.tables.answers.getKeys({ end: expiryKeyPrefix(now_ms) })) {
      void this.tables.answers.remove(key);
      pruned++;
    }
    return pruned;
  }

  /** Every spent nonce on record, oldest first (an audit read; not on any hot path). */
  *spentNonces(): Iterable<ConsumedNonce> {
    for (const { value } of this.tables.spent_nonces.getRange()) yield* value;
  }
}

/** A kept answer's key starts with its expiry in milliseconds, 15 digits, so keys sort by expiry. */
export function expiryKeyPrefix(expires_at_ms: number): string {
  return String(expires_at_ms).padStart(15, '0');
}

const utf8 = new TextDecoder();

function first<T>(items: Iterable<T>): T | undefined {
  for (const item of items) return item;
  return undefined;
}
