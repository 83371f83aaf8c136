import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { mkdir, rename, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { LmdbStore } from './lmdb_store.js';
import {
  BACKUP_DATA_FILE,
  BACKUP_ID,
  fileDigest,
  readManifest,
  syncPath,
  writeManifest,
  type BackupManifest,
} from './backup_manifest.js';

export const BACKUPS_FOLDER = 'backups';
/** A backup is written under this prefix and renamed to its id once complete; a crash leaves the prefix. */
export const INCOMPLETE_PREFIX = '.incomplete-';

export interface Backup {
  backup_id: string;
  path: string;
  manifest: BackupManifest;
}

/** A folder in backups/ that is not a complete backup, and why; it is reported, never opened. */
export interface SkippedBackup {
  name: string;
  reason: string;
}

export interface BackupScan {
  /** Oldest first. */
  complete: Backup[];
  skipped: SkippedBackup[];
}

/**
 * Reads only manifests and file sizes, never the stores: a backup counts as complete
 * when its folder has its final name, its manifest parses and names it, and its
 * data.mdb has the size the manifest says. The checksum is checked by the drill (it
 * reads the whole file), so a same-size corruption is caught there.
 */
export function scanBackups(data_dir: string): BackupScan {
  const root = join(data_dir, BACKUPS_FOLDER);
  const scan: BackupScan = { complete: [], skipped: [] };
  if (!existsSync(root)) return scan;
  for (const name of readdirSync(root).sort()) {
    const path = join(root, name);
    if (name.startsWith(INCOMPLETE_PREFIX)) {
      scan.skipped.push({ name, reason: 'an interrupted backup (never renamed into place)' });
      continue;
    }
    if (!BACKUP_ID.test(name)) continue;
    const read = readManifest(path);
    if ('problem' in read) {
      scan.skipped.push({ name, reason: read.problem });
      continue;
    }
    if (read.manifest.backup_id !== name) {
      scan.skipped.push({ name, reason: `the manifest names another backup (${read.manifest.backup_id})` });
      continue;
    }
    const size = fileSize(join(path, BACKUP_DATA_FILE));
    if (size === undefined) {
      scan.skipped.push({ name, reason: `no ${BACKUP_DATA_FILE}` });
      continue;
    }
    if (size !== read.manifest.data_bytes) {
      scan.skipped.push({
        name,
        reason: `${BACKUP_DATA_FILE} is ${size} bytes, the manifest says ${read.manifest.data_bytes}`,
      });
      continue;
    }
    scan.complete.push({ backup_id: name, path, manifest: read.manifest });
  }
  // Oldest taken first, by the time in the name, not by its seq: after a restore the next
  // backups have lower seqs than those of the history given up, and it is they that
  // retention must keep and the drill must take.
  scan.complete.sort(
    (a, b) => takenAtMs(a.backup_id) - takenAtMs(b.backup_id) || a.backup_id.localeCompare(b.backup_id),
  );
  return scan;
}

/** The time a backup was taken, from its name (`<seq>-<ms>`). */
function takenAtMs(backup_id: string): number {
  return Number(backup_id.slice(backup_id.indexOf('-') + 1));
}

/** Complete backups, oldest taken first. */
export function listBackups(data_dir: string): Backup[] {
  return scanBackups(data_dir).complete;
}

export interface TakenBackup extends Backup {
  /** Folders a crash left half-written by an earlier backup, removed now. */
  leftovers_removed: string[];
  /** Other folders in backups/ that are not complete backups (left in place for the operator). */
  skipped: SkippedBackup[];
}

/**
 * A consistent copy of the whole store while it runs (LMDB copies from a read
 * transaction, so writers go on). It is written under a temporary name with its
 * manifest (size and SHA-256 of data.mdb), fsynced, and only then renamed to its
 * id, so a crash at any point leaves either a complete backup or a temporary folder
 * that no listing counts. The oldest complete backups beyond `retention` go.
 */
export async function takeBackup(
  store: LmdbStore,
  data_dir: string,
  at_ms: number,
  retention: number,
): Promise<TakenBackup> {
  const root = join(data_dir, BACKUPS_FOLDER);
  mkdirSync(root, { recursive: true });
  const leftovers_removed = await removeLeftovers(root);
  await store.flushed();
  const head = store.ledgerHead();
  const backup_id = `${String(head.seq).padStart(12, '0')}-${at_ms}`;
  const temporary = join(root, `${INCOMPLETE_PREFIX}${backup_id}`);
  const path = join(root, backup_id);
  await mkdir(temporary);
  try {
    await store.root.backup(temporary, false);
    const data = join(temporary, BACKUP_DATA_FILE);
    await syncPath(data);
    const { bytes, sha256 } = await fileDigest(data);
    const manifest: BackupManifest = {
      format: 1,
      backup_id,
      ledger_seq: head.seq,
      ledger_hash: head.hash,
      data_bytes: bytes,
      data_sha256: sha256,
      created_at: new Date(at_ms).toISOString(),
    };
    await writeManifest(temporary, manifest);
    await syncPath(temporary);
    await rename(temporary, path);
    await syncPath(root);
    const scan = scanBackups(data_dir);
    for (const old of scan.complete.slice(0, Math.max(0, scan.complete.length - retention)))
      rmSync(old.path, { recursive: true, force: true });
    return { backup_id, path, manifest, leftovers_removed, skipped: scan.skipped };
  } catch (error) {
    await rm(temporary, { recursive: true, force: true });
    throw error;
  }
}

async function removeLeftovers(root: string): Promise<string[]> {
  const leftovers = readdirSync(root).filter((name) => name.startsWith(INCOMPLETE_PREFIX));
  for (const name of leftovers) await rm(join(root, name), { recursive: true, force: true });
  return leftovers;
}

function fileSize(path: string): number | undefined {
  try {
    return statSync(path).size;
  } catch {
    return undefined;
  }
}
