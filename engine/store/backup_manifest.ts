import { createHash } from 'node:crypto';
import { createReadStream, readFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';

export const MANIFEST_FILE = 'manifest.json';
export const BACKUP_DATA_FILE = 'data.mdb';
/** Folder names of complete backups: the ledger seq (zero-padded) and the time taken in ms (listings order by the time). */
export const BACKUP_ID = /^\d{12}-\d+$/;

/**
 * What a complete backup holds, written inside its folder before the folder gets its
 * final name: a backup without one was never finished and is never restored.
 * ledger_seq and ledger_hash are the head when the copy began; the copy holds at
 * least that entry (LMDB copies from a read transaction taken after it).
 */
export const BackupManifestSchema = z.strictObject({
  format: z.literal(1),
  backup_id: z.string().regex(BACKUP_ID),
  ledger_seq: z.int().min(0),
  ledger_hash: z.string().regex(/^[0-9a-f]{64}$/),
  data_bytes: z.int().min(0),
  data_sha256: z.string().regex(/^[0-9a-f]{64}$/),
  created_at: z.iso.datetime(),
});
export type BackupManifest = z.infer<typeof BackupManifestSchema>;

/** The manifest of the backup folder, or why there is no usable one. */
export function readManifest(folder: string): { manifest: BackupManifest } | { problem: string } {
  let text: string;
  try {
    text = readFileSync(join(folder, MANIFEST_FILE), 'utf8');
  } catch {
    return { problem: 'no manifest (an interrupted or unfinished backup)' };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { problem: 'the manifest is not JSON' };
  }
  const checked = BackupManifestSchema.safeParse(parsed);
  if (!checked.success)
    return {
      problem: `the manifest is malformed (${checked.error.issues.map((issue) => issue.path.join('.') || issue.message).join(', ')})`,
    };
  return { manifest: checked.data };
}

/** Written, fsynced, and only then is the folder renamed into place. */
export async function writeManifest(folder: string, manifest: BackupManifest): Promise<void> {
  const handle = await open(join(folder, MANIFEST_FILE), 'wx');
  try {
    await handle.writeFile(`${JSON.stringify(manifest, null, 2)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Size and SHA-256 of a file, read in 1 MiB pieces: a store may be a gigabyte, and
 * the event loop keeps turning between pieces.
 */
export async function fileDigest(path: string): Promise<{ bytes: number; sha256: string }> {
  const hash = createHash('sha256');
  let bytes = 0;
  for await (const piece of createReadStream(path, { highWaterMark: 1 << 20 })) {
    hash.update(piece as Buffer);
    bytes += (piece as Buffer).length;
  }
  return { bytes, sha256: hash.digest('hex') };
}

/** Why a data file does not match its manifest, or undefined when it does. */
export async function digestMismatch(path: string, manifest: BackupManifest): Promise<string | undefined> {
  const { bytes, sha256 } = await fileDigest(path);
  if (bytes !== manifest.data_bytes)
    return `${BACKUP_DATA_FILE} is ${bytes} bytes, the manifest says ${manifest.data_bytes}`;
  if (sha256 !== manifest.data_sha256) return `${BACKUP_DATA_FILE} does not match the manifest's SHA-256`;
  return undefined;
}

/** fsync of a file or a folder (a rename is durable once its folder is synced). */
export async function syncPath(path: string): Promise<void> {
  const handle = await open(path, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
