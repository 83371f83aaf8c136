import {
  replicatedTickOf,
  type EngineStore,
  type LedgerHead,
  type StateImage,
  type TickCommit,
  type TickRecord,
} from '../../engine/index.js';
import { StaleWriterError, type TermWriter } from './tick_log.js';

/**
 * The engine's store when the society is replicated: the local store, with the tick log
 * in front of its commits while this node writes. A tick is appended to the log first
 * (resolving once a quorum stored it) and committed locally after, so the engine
 * answers its callers only when both hold it, and a local store never has a tick the log
 * lacks: a writer fenced by the log (StaleWriterError) has written nothing, and rejoins
 * as a follower from where its store ends. Appends go one at a time, in tick order, and
 * so do the local commits behind them. While following, commits are the followed ticks
 * (Engine.follow) and go to the local store alone.
 */
export class ReplicatedStore implements EngineStore {
  private writer: TermWriter | undefined;
  /** The last append (and the local commit of anything queued behind it). */
  private chain: Promise<void> = Promise.resolve();
  private head: LedgerHead;

  constructor(
    private readonly local: EngineStore,
    private readonly on_append_ms?: (ms: number) => void,
  ) {
    this.head = local.ledgerHead();
  }

  /** This node may no longer write: every commit from now on is refused, and nothing more is appended. */
  fence(): void {
    this.writer?.abandon();
    const refused = Promise.reject(new StaleWriterError(this.local.lastTick() + 1, 'this node lost its lease'));
    refused.catch(() => undefined);
    this.chain = refused;
  }

  /** From now on every tick is appended to the log by this term's writer before it is committed here. */
  lead(writer: TermWriter): void {
    this.head = this.local.ledgerHead();
    this.writer = writer;
  }

  commitTick(commit: TickCommit): Promise<void> {
    const writer = this.writer;
    if (writer === undefined) return this.local.commitTick(commit);
    const tick = replicatedTickOf(commit, this.head);
    if (tick) this.head = tick.ledger_head;
    const appended = tick
      ? this.chain.then(async () => {
          const started_ms = performance.now();
          await writer.append(tick);
          this.on_append_ms?.(performance.now() - started_ms);
        })
      : this.chain;
    // Issued in order: each local commit waits for its own append and everything before it.
    const committed = appended.then(() => this.local.commitTick(commit));
    this.chain = committed;
    return committed;
  }

  /** Resolves when everything queued is settled: a refused append was reported to its tick's commit, not here. */
  flushed(): Promise<void> {
    return this.chain.catch(() => undefined).then(() => this.local.flushed());
  }

  latestSnapshot(): StateImage | undefined {
    return this.local.latestSnapshot();
  }
  snapshotTicks(): number[] {
    return this.local.snapshotTicks();
  }
  snapshotAt(tick: number): StateImage | undefined {
    return this.local.snapshotAt(tick);
  }
  ticksAfter(tick: number): Iterable<TickRecord> {
    return this.local.ticksAfter(tick);
  }
  lastTick(): number {
    return this.local.lastTick();
  }
  ledgerHash(seq: number): string | undefined {
    return this.local.ledgerHash(seq);
  }
  ledgerJson(seq: number): string | undefined {
    return this.local.ledgerJson(seq);
  }
  ledgerEntries(from: number) {
    return this.local.ledgerEntries(from);
  }
  ledgerHead(): LedgerHead {
    return this.local.ledgerHead();
  }
  treeLeafCount(): number {
    return this.local.treeLeafCount();
  }
  treeRecord(leaf: number): Uint8Array | undefined {
    return this.local.treeRecord(leaf);
  }
  appendTreeHashes(first: number, hashes: Uint8Array): Promise<void> {
    return this.local.appendTreeHashes(first, hashes);
  }
}
