import { closeSync, openSync, readSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { RootDatabase } from 'lmdb';
import { DATA_FILE, STORE_DATABASES, TREE_DATABASE, openReadOnly } from './lmdb_store.js';

/** Something wrong with a store's files, named by the file. */
export interface FileProblem {
  file: string;
  reason: string;
}

/** What a readable store holds, as the probe found it. */
export interface StoreSummary {
  ledger_entries: number;
  ledger_last_seq: number;
  log_records: number;
  last_tick: number;
  snapshots: number;
  bytes_read: number;
}

/** A probe's answer, one JSON line on its stdout. */
export type ProbeOutcome = { ok: true; summary: StoreSummary } | ({ ok: false } & FileProblem);

// LMDB's file layout as the lmdb package (3.x) writes it: pages 0 and 1 are meta
// pages, each a 24-byte page header (page number, txnid, flags, bounds) followed by
// MDB_meta (liblmdb mdb.c). Offsets are from the start of the page. A valid store
// passing this check is pinned by a test, so a changed layout cannot go unnoticed.
const META_MAGIC = 0xbeefc0de;
const MAGIC_AT = 24;
const PAGE_SIZE_AT = 48; // mm_dbs[FREE_DBI].md_pad holds the page size
const FREE_ROOT_AT = 88;
const MAIN_ROOT_AT = 136;
const TXNID_AT = 152;
const META_BYTES = 160;
const NO_PAGE = 0xffffffffffffffffn;

/**
 * Checks data.mdb's header without LMDB, which maps the file and dies by SIGBUS or
 * SIGSEGV on pages that are missing or garbage: an empty file, a file that is not
 * LMDB's, and a file cut short before the pages its newest header points at.
 */
export function lmdbFileProblem(store_dir: string): FileProblem | undefined {
  const file = join(store_dir, DATA_FILE);
  let size: number;
  try {
    const stat = statSync(file);
    if (!stat.isFile()) return { file, reason: 'is not a regular file' };
    size = stat.size;
  } catch {
    return { file, reason: 'is missing' };
  }
  if (size === 0) return { file, reason: 'is empty (0 bytes): an interrupted copy or a damaged disk, not a store' };
  const first = readAt(file, 0, META_BYTES);
  if (first.length < META_BYTES || first.readUInt32LE(MAGIC_AT) !== META_MAGIC) {
    return {
      file,
      reason: `is not an LMDB store (${size} bytes without LMDB's signature at the start): garbage or another kind of file`,
    };
  }
  const page_size = first.readUInt32LE(PAGE_SIZE_AT);
  if (page_size < 512 || page_size > 65536 || (page_size & (page_size - 1)) !== 0)
    return { file, reason: `has a damaged header (page size ${page_size})` };
  if (size < 2 * page_size)
    return { file, reason: `is truncated: ${size} bytes, shorter than its two ${page_size}-byte header pages` };
  const second = readAt(file, page_size, META_BYTES);
  if (second.readUInt32LE(MAGIC_AT) !== META_MAGIC) return { file, reason: 'has a damaged second header page' };
  const newest = second.readBigUInt64LE(TXNID_AT) > first.readBigUInt64LE(TXNID_AT) ? second : first;
  const pages_in_file = BigInt(Math.floor(size / page_size));
  for (const at of [FREE_ROOT_AT, MAIN_ROOT_AT]) {
    const root = newest.readBigUInt64LE(at);
    if (root !== NO_PAGE && root >= pages_in_file) {
      return {
        file,
        reason: `is truncated: its header points at page ${root}, but the file holds only ${pages_in_file} pages (${size} bytes)`,
      };
    }
  }
  return undefined;
}

function readAt(file: string, position: number, length: number): Buffer {
  const fd = openSync(file, 'r');
  try {
    const buffer = Buffer.alloc(length);
    const read = readSync(fd, buffer, 0, length, position);
    return buffer.subarray(0, read);
  } finally {
    closeSync(fd);
  }
}

/**
 * A snapshot is msgpack, decoded only when a start or a replay loads it: a flipped
 * byte there would otherwise surface as a bare decoder message far from its file.
 * Only the few kept snapshots are decoded, one at a time.
 */
function decodeEverySnapshot(root: RootDatabase): void {
  const snapshots = root.openDB<unknown, number>({ name: 'snapshots', keyEncoding: 'uint32' });
  for (const tick of Array.from(snapshots.getKeys())) {
    let image: unknown;
    try {
      image = snapshots.get(tick);
    } catch (error) {
      throw new Error(
        `the snapshot of tick ${tick} does not decode (${error instanceof Error ? error.message : String(error)})`,
      );
    }
    if (typeof image !== 'object' || image === null || (image as { tick?: unknown }).tick !== tick)
      throw new Error(`the snapshot of tick ${tick} does not decode to a state of that tick`);
  }
}

/**
 * Opens the store read-only and reads every record of every database, so that any
 * page LMDB would trip over is touched here (in the probe's own process) rather than
 * later in the server. Throws what LMDB throws; may die by a signal on damage the
 * header check cannot see, which is why it runs in a child process.
 */
export async function readWholeStore(store_dir: string): Promise<StoreSummary> {
  const { root, scratch_dir } = openReadOnly(store_dir);
  const summary: StoreSummary = {
    ledger_entries: 0,
    ledger_last_seq: 0,
    log_records: 0,
    last_tick: 0,
    snapshots: 0,
    bytes_read: 0,
  };
  try {
    const names = new Set(Array.from(root.getKeys(), String));
    // The tree is read too when there is one: a store written before it existed has none yet.
    for (const name of [...STORE_DATABASES, ...(names.has(TREE_DATABASE) ? [TREE_DATABASE] : [])]) {
      if (!names.has(name))
        throw new Error(`it is an LMDB file but not a Tessera store: it lacks the ${name} database`);
      // Log and ledger hold text; reading them as strings is several times cheaper than as copied Buffers.
      const text = name === 'log' || name === 'ledger';
      const db = root.openDB<string | Buffer, number>({
        name,
        keyEncoding: 'uint32',
        encoding: text ? 'string' : 'binary',
      });
      let count = 0;
      let last_key = 0;
      for (const { key, value } of db.getRange()) {
        count++;
        last_key = key;
        summary.bytes_read += value.length;
      }
      if (name === 'ledger') Object.assign(summary, { ledger_entries: count, ledger_last_seq: last_key });
      if (name === 'log') Object.assign(summary, { log_records: count, last_tick: last_key });
      if (name === 'snapshots') summary.snapshots = count;
    }
    decodeEverySnapshot(root);
    return summary;
  } finally {
    await root.close();
    if (scratch_dir) rmSync(scratch_dir, { recursive: true, force: true });
  }
}
