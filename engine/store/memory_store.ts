import type { StateImage } from '../state.js';
import { MemoryTable } from './memory_table.js';
import { TableStore } from './table_store.js';
import type { ConsumedNonce, KeptAnswerRecord, TickCommit } from './types.js';

export interface MemoryStoreOptions {
  /** Snapshots older than the newest few are deleted, as in LmdbStore. */
  snapshots_kept?: number;
}

/**
 * An EngineStore in memory, for engine tests and benches: the real Engine runs on it
 * without a disk, and it keeps exactly what LmdbStore keeps (the same TableStore over
 * in-memory tables). "Durable" means written into the tables; a commit can be held in
 * flight (hold) to show what the engine does meanwhile. Snapshots are stored as deep
 * copies, as LMDB stores their encoding: the engine goes on changing the state an
 * image shares parts with.
 */
export class MemoryStore extends TableStore {
  /** Called with each commit as it arrives, before it is held or written (tests count what a tick holds). */
  on_commit: ((commit: TickCommit) => void) | undefined;
  /** The writes of commits that arrived while held, in arrival order. */
  private held: (() => void)[] | undefined;
  private last_commit: Promise<unknown> = Promise.resolve();

  constructor(options: MemoryStoreOptions = {}) {
    super(
      {
        log: new MemoryTable<string | Uint8Array>(),
        ledger: new MemoryTable<string>(),
        snapshots: new MemoryTable<StateImage>(),
        spent_nonces: new MemoryTable<ConsumedNonce[]>(),
        tree: new MemoryTable<Uint8Array>(),
        answers: new MemoryTable<KeptAnswerRecord, string>(),
      },
      options.snapshots_kept,
    );
  }

  override commitTick(commit: TickCommit): Promise<void> {
    this.on_commit?.(commit);
    const stored: TickCommit = {
      ...commit,
      consumed_nonces: commit.consumed_nonces.map((spent) => ({ ...spent })),
      ...(commit.snapshot ? { snapshot: structuredClone(commit.snapshot) } : {}),
    };
    const held = this.held;
    const written = held
      ? new Promise<void>((resolve, reject) => held.push(() => super.commitTick(stored).then(resolve, reject)))
      : super.commitTick(stored);
    this.last_commit = written.catch(() => undefined);
    return written;
  }

  async flushed(): Promise<void> {
    await this.last_commit;
  }

  /**
   * Holds every commit from now on in flight, neither written nor answered, until the
   * returned release is called; they are then written in the order they arrived.
   */
  hold(): () => void {
    const held: (() => void)[] = (this.held ??= []);
    return () => {
      if (this.held === held) this.held = undefined;
      for (const write of held.splice(0)) write();
    };
  }
}
