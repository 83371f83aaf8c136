import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { open, type RootDatabase, type Database } from 'lmdb';
import type { LoggedAction } from '../engine/apply.js';
import { chainEntry, type ChainedEntry, type LedgerEvent, type LedgerProof } from '../engine/ledger.js';
import { RecordWriter } from '../engine/store/record_bytes.js';
import { LogTree } from '../engine/log/log_tree.js';
import { leafHashesFrom, recordsOf } from '../engine/log/tree_batches.js';
import type { LedgerHead } from '../engine/state.js';
import type { TaskSpec } from './measure.js';

/** An entry as an act's apply emits it, before it is chained: what chainEntry takes besides the head. */
export interface EntryDraft {
  at_ms: number;
  event: LedgerEvent;
  proof?: LedgerProof;
  /** On an act's first entry: the act as the engine logs it for replay (its proof the same object as `proof`). */
  action?: LoggedAction;
}

/**
 * A durable act's row: the engine, the bare limit, the floor the formats set, and that
 * floor with the log record replay needs (logged), each in acts per second.
 */
export interface DurableRates {
  engine: number;
  bare: number;
  floor: number;
  logged: number;
}

/** A durable act's rates from its tasks: the engine's (named engine) and the three of bareAndFloorTasks. */
export function durableRates(rates: Record<string, number>): DurableRates {
  return { engine: rates.engine!, bare: rates.bare!, floor: rates.floor!, logged: rates.logged! };
}

/** The bare limit's input: the drafts chained ahead of time (each after a zero head), as finished text. */
function finishedTexts(drafts: EntryDraft[]): string[] {
  const zero = '0'.repeat(64);
  return drafts.map(
    (draft, index) => chainEntry({ seq: index, hash: zero }, draft.at_ms, draft.event, draft.proof).json,
  );
}

/**
 * A durable act's two references, beside its engine task: the bare limit, handed the
 * entries as finished text, and the floor, which makes the text as the engine does. Both
 * take what `draft` gives for one timed call (untimed), the same entries the engine's
 * task writes.
 */
export function bareAndFloorTasks(bare: BareLedger, ops_per_call: number, draft: () => EntryDraft[]): TaskSpec[] {
  let texts: string[] = [];
  const floorTask = (name: string, options: { with_log_record?: boolean }): TaskSpec => {
    let drafts: EntryDraft[] = [];
    return {
      name,
      ops_per_call,
      beforeEach: () => {
        drafts = draft();
      },
      fn: () => bare.appendAsFormatsRequire(drafts, options),
    };
  };
  return [
    {
      name: 'bare',
      ops_per_call,
      beforeEach: () => {
        texts = finishedTexts(draft());
      },
      fn: () => bare.append(texts),
    },
    floorTask('floor', {}),
    floorTask('logged', { with_log_record: true }),
  ];
}

/**
 * The bare limit of a durable append: SHA-256 of an entry's bytes and one lmdb put,
 * committed the same way as the engine commits (fsync before the promise resolves),
 * with no engine around it. Beside it, the floor that the ledger's public formats set
 * (appendAsFormatsRequire): what any engine keeping this ledger must do per entry.
 */
export class BareLedger {
  private readonly root: RootDatabase;
  private readonly db: Database<string, number>;
  /** The floor's own tables, so that its keys never meet the bare limit's. */
  private readonly floor_ledger: Database<string, number>;
  private readonly floor_tree: Database<Uint8Array, number>;
  private readonly floor_log: Database<Uint8Array, number>;
  private readonly records = new RecordWriter();
  private tick = 0;
  private seq = 0;
  private head: LedgerHead = { seq: 0, hash: '0'.repeat(64) };
  /** The floor's tree, read back the way the engine's store reads its own (older hashes leave the memory ring). */
  private readonly floor_log_tree = new LogTree({
    treeLeafCount: () => 0,
    treeRecord: (leaf) => leafHashesFrom((key) => this.floor_tree.get(key), leaf),
  });

  constructor(dir: string) {
    this.root = open({ path: join(dir, 'bare'), overlappingSync: false, noSync: false });
    this.db = this.root.openDB<string, number>({ name: 'ledger', keyEncoding: 'uint32', encoding: 'string' });
    this.floor_ledger = this.root.openDB<string, number>({ name: 'floor', keyEncoding: 'uint32', encoding: 'string' });
    this.floor_tree = this.root.openDB<Uint8Array, number>({
      name: 'floor_tree',
      keyEncoding: 'uint32',
      encoding: 'binary',
    });
    this.floor_log = this.root.openDB<Uint8Array, number>({
      name: 'floor_log',
      keyEncoding: 'uint32',
      encoding: 'binary',
    });
  }

  /** SHA-256 and a put of text already made: the ceiling of every durable act row. */
  async append(entries: string[]): Promise<void> {
    let last: Promise<boolean> | undefined;
    for (const bytes of entries) {
      createHash('sha256').update(bytes).digest('hex');
      last = this.db.put(++this.seq, bytes);
    }
    await last;
  }

  /**
   * The same entries from their drafts, doing only what the public formats ask
   * (docs/protocol.md#the-ledger, docs/transparency.md), with the engine's own code
   * for each part: the entry's JCS text and chain hash (chainEntry), the RFC 6962 leaf
   * hash of the JSON as served and the interior node hashes (LogTree.append, about
   * one per leaf), the entry's put, and the tree's hashes in records of 16 leaves
   * (recordsOf). No rules, no state, no log of the actions: an engine can approach this
   * floor but not pass it while the formats stay as they are.
   *
   * with_log_record: also the tick's log record of the drafts' actions, written by the
   * engine's own RecordWriter into the same transaction, which an engine that replays its
   * log to reproduce the ledger cannot do without (still no rules and no state).
   */
  async appendAsFormatsRequire(drafts: EntryDraft[], { with_log_record = false } = {}): Promise<void> {
    let last: Promise<boolean> | undefined;
    const texts: string[] = new Array(drafts.length);
    // Only the logged floor keeps the chained entries and actions its record is written from.
    const entries: ChainedEntry[] = [];
    const actions: LoggedAction[] = [];
    const first_leaf = this.head.seq;
    for (let i = 0; i < drafts.length; i++) {
      const draft = drafts[i]!;
      const chained = chainEntry(this.head, draft.at_ms, draft.event, draft.proof);
      this.head = { seq: chained.seq, hash: chained.hash };
      texts[i] = chained.json;
      last = this.floor_ledger.put(chained.seq, chained.json);
      if (with_log_record) {
        entries.push(chained);
        if (draft.action) actions.push(draft.action);
      }
    }
    if (with_log_record) {
      const record = { tick: ++this.tick, at_ms: drafts[0]?.at_ms ?? 0, actions };
      last = this.floor_log.put(record.tick, this.records.bytes(record, entries));
    }
    for (const { leaf, record } of recordsOf(first_leaf, this.floor_log_tree.append(texts)))
      last = this.floor_tree.put(leaf, record);
    await last;
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}
