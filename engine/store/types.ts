import type { TickRecord } from '../apply.js';
import type { ChainedEntry } from '../ledger.js';
import type { StoredEntry } from '../ledger_integrity.js';
import type { LedgerHead, StateImage } from '../state.js';

export interface ConsumedNonce {
  nonce: string;
  expires_at_ms: number;
}

/**
 * The answer a signed request got, kept until its nonce expires so that the same request
 * sent again (a retry after a lost answer) gets it again instead of being applied twice.
 * The host builds the key; it must start with the expiry as 15 zero-padded digits of
 * milliseconds, so that pruning removes a range.
 */
export interface KeptAnswer {
  key: string;
  record: KeptAnswerRecord;
}

export interface KeptAnswerRecord {
  expires_at_ms: number;
  /** SHA-256 of the request's signing string: method, path, agent, nonce and body hash. */
  request_sha256: string;
  signature: string;
  outcome: KeptOutcome;
}

/** What the engine answered: the result and where it landed, or the refusal. */
export type KeptOutcome =
  | { ok: true; result: Record<string, unknown>; ledger: { first_seq: number; last_seq: number } | null }
  | { ok: false; code: string; message: string; details?: Record<string, unknown> };

/** Everything one tick writes, committed in one transaction or not at all. */
export interface TickCommit {
  /** Absent when every action of the tick was refused: only nonces are spent. */
  record?: TickRecord;
  entries: ChainedEntry[];
  /**
   * The Merkle tree hashes the tick's leaves added (LogTree.append), from leaf
   * entries[0].seq - 1 on, stored as one record for the tick. The engine always gives
   * them; none (empty) writes a ledger as stores did before the tree (tests of such
   * stores), whose tree is then built on the next open.
   */
  tree_hashes: Uint8Array;
  consumed_nonces: ConsumedNonce[];
  /** The answers of the tick's signed requests that asked to be kept (Submission.keep_answer). */
  kept_answers?: KeptAnswer[];
  snapshot?: StateImage;
}

/**
 * The engine's only door to the disk. The LMDB adapter is the real one; the engine
 * itself never touches the file system.
 */
export interface EngineStore {
  /** Queues the tick's writes as one atomic unit; resolves once they are durable. */
  commitTick(commit: TickCommit): Promise<void>;
  /** Resolves when everything queued so far is durable. */
  flushed(): Promise<void>;
  latestSnapshot(): StateImage | undefined;
  /** The ticks of the snapshots kept, oldest first. */
  snapshotTicks(): number[];
  snapshotAt(tick: number): StateImage | undefined;
  ticksAfter(tick: number): Iterable<TickRecord>;
  lastTick(): number;
  /** The hash of the stored entry at seq, if there is one. */
  ledgerHash(seq: number): string | undefined;
  /** The stored JSON of the entry at seq, exactly as it is served, if there is one. */
  ledgerJson(seq: number): string | undefined;
  /** Every stored entry from seq `from` on, in seq order, as stored. */
  ledgerEntries(from: number): Iterable<StoredEntry>;
  ledgerHead(): LedgerHead;
  /** How many leaves of the ledger's Merkle tree have their records stored. */
  treeLeafCount(): number;
  /** The tree hashes leaf n's append added (engine/log/log_tree.ts), if stored. */
  treeRecord(leaf: number): Uint8Array | undefined;
  /**
   * Stores the tree hashes of leaves `first` on (LogTree.append's output) outside a
   * tick: a store written before the tree existed gets it built from its ledger.
   * Resolves once durable.
   */
  appendTreeHashes(first: number, hashes: Uint8Array): Promise<void>;
}
