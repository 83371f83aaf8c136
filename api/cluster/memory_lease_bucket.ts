import { WrongRevisionError, type LeaseBucket } from './leader_lease.js';

/**
 * The lease's bucket in one process, for the in-process tests and the simulator, with
 * JetStream's rules: revisions grow across writes and deletes, an entry not written
 * again for `expire_after_ms` is gone (JetStream removes it some time after the
 * bucket's ttl; the simulator chooses how long), and time is the caller's clock.
 */
export class MemoryLeaseBucket implements LeaseBucket {
  private entry: { revision: number; value: string; written_ms: number } | undefined;
  private last_revision = 0;

  constructor(
    private readonly now_ms: () => number,
    private readonly expire_after_ms: number,
  ) {}

  /** The entry now, after expiry: synchronous, for the simulator's network to call when a request arrives. */
  getNow(): { revision: number; value: string } | undefined {
    if (this.entry && this.now_ms() - this.entry.written_ms >= this.expire_after_ms) this.entry = undefined;
    return this.entry && { revision: this.entry.revision, value: this.entry.value };
  }

  createNow(value: string): number {
    if (this.getNow()) throw new WrongRevisionError('wrong last sequence: the key exists');
    return this.write(value);
  }

  updateNow(value: string, revision: number): number {
    if (this.getNow()?.revision !== revision) throw new WrongRevisionError(`wrong last sequence: not at ${revision}`);
    return this.write(value);
  }

  deleteNow(revision: number): void {
    if (this.getNow()?.revision !== revision) throw new WrongRevisionError(`wrong last sequence: not at ${revision}`);
    this.entry = undefined;
    this.last_revision++;
  }

  async get() {
    return this.getNow();
  }
  async create(value: string) {
    return this.createNow(value);
  }
  async update(value: string, revision: number) {
    return this.updateNow(value, revision);
  }
  async delete(revision: number) {
    this.deleteNow(revision);
  }

  private write(value: string): number {
    this.last_revision++;
    this.entry = { revision: this.last_revision, value, written_ms: this.now_ms() };
    return this.last_revision;
  }
}
