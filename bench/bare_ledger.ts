import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { open, type RootDatabase, type Database } from 'lmdb';

/**
 * The bare limit of a durable append: SHA-256 of an entry's bytes and one lmdb put,
 * committed the same way as the engine commits (fsync before the promise resolves),
 * with no engine around it.
 */
export class BareLedger {
  private readonly root: RootDatabase;
  private readonly db: Database<string, number>;
  private seq = 0;

  constructor(dir: string) {
    this.root = open({ path: join(dir, 'bare'), overlappingSync: false, noSync: false });
    this.db = this.root.openDB<string, number>({ name: 'ledger', keyEncoding: 'uint32', encoding: 'string' });
  }

  async append(entries: string[]): Promise<void> {
    let last: Promise<boolean> | undefined;
    for (const bytes of entries) {
      createHash('sha256').update(bytes).digest('hex');
      last = this.db.put(++this.seq, bytes);
    }
    await last;
  }

  async close(): Promise<void> {
    await this.root.close();
  }
}
