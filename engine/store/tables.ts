import type { StateImage } from '../state.js';
import type { ConsumedNonce, KeptAnswerRecord } from './types.js';

/** A key range as LMDB reads one: start inclusive, end exclusive; reversed, from start down to end. */
export interface KeyRange<K extends TableKey = number> {
  start?: K;
  end?: K;
  reverse?: boolean;
  limit?: number;
}

/**
 * One ordered table of the store, keyed by an unsigned integer: the few calls of an
 * lmdb-js database the store makes, so that an lmdb `Database` is one as it stands and
 * the in-memory store needs only a sorted map. A put resolves once it is durable.
 */
export interface Table<V, K extends TableKey = number> {
  get(key: K): V | undefined;
  put(key: K, value: V): Promise<boolean>;
  remove(key: K): Promise<boolean>;
  getKeys(range?: KeyRange<K>): Iterable<K>;
  getRange(range?: KeyRange<K>): Iterable<{ key: K; value: V }>;
}

/** Unsigned integers for most tables; ASCII text where a key is composite (kept answers), ordered byte by byte. */
export type TableKey = number | string;

/**
 * The tables of every Tessera store: log (tick -> TickRecord as JSON), ledger
 * (seq -> the entry's served JSON), snapshots (tick -> state image), spent_nonces
 * (commit number -> the nonces that commit spent, with their expiry) and tree (leaf
 * index, seq - 1 -> the Merkle tree hashes the appends of that leaf and the ones after it
 * in the same tick added, engine/log/log_tree.ts and tree_batches.ts),
 * and answers (the answers kept for retried signed requests, keyed by text that starts
 * with their expiry, KeptAnswer).
 */
export interface StoreTables {
  /** Written as the JSON's UTF-8 bytes (RecordWriter); LMDB reads them back as the text. */
  log: Table<string | Uint8Array>;
  ledger: Table<string>;
  snapshots: Table<StateImage>;
  spent_nonces: Table<ConsumedNonce[]>;
  tree: Table<Uint8Array>;
  answers: Table<KeptAnswerRecord, string>;
}
