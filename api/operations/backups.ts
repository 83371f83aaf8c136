import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { LmdbStore } from '../../engine/store/lmdb_store.js';

export const BACKUPS_FOLDER = 'backups';

export interface Backup {
  backup_id: string;
  path: string;
}

/** Backups, oldest first: folders named by ledger seq (zero-padded) and time, so names sort in order. */
export function listBackups(data_dir: string): Backup[] {
  const root = join(data_dir, BACKUPS_FOLDER);
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .filter((name) => /^\d{12}-\d+$/.test(name) && existsSync(join(root, name, 'data.mdb')))
    .sort()
    .map((backup_id) => ({ backup_id, path: join(root, backup_id) }));
}

/**
 * A consistent copy of the whole store while it runs (LMDB copies from a read
 * transaction, so writers go on), kept with a retention count: the oldest beyond it go.
 */
export async function takeBackup(store: LmdbStore, data_dir: string, at_ms: number, retention: number): Promise<Backup & { ledger_seq: number; ledger_hash: string }> {
  await store.flushed();
  const head = store.ledgerHead();
  const backup_id = `${String(head.seq).padStart(12, '0')}-${at_ms}`;
  const path = join(data_dir, BACKUPS_FOLDER, backup_id);
  mkdirSync(path, { recursive: true });
  await store.root.backup(path, false);
  const all = listBackups(data_dir);
  for (const old of all.slice(0, Math.max(0, all.length - retention))) rmSync(old.path, { recursive: true, force: true });
  return { backup_id, path, ledger_seq: head.seq, ledger_hash: head.hash };
}
