import { execFile, spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { canonicalEntry, type LedgerEntry } from '../../engine/ledger.js';
import { sha256Hex } from '../../engine/canonical.js';
import { configFromEnv, type Config } from '../../api/config.js';
import { startSociety } from '../../api/server.js';
import { startRefusal } from '../../api/start_refusal.js';
import { startTestSociety } from './society.js';
import { join as joinSociety } from './world.js';

/** A society that ran and stopped: its data folder, and the members that joined it. */
export async function stoppedSociety(
  handles: string[],
  config: Partial<Config> = {},
): Promise<{ data_dir: string; store_dir: string; head_seq: number }> {
  const society = await startTestSociety({ config });
  for (const handle of handles) await joinSociety(society, handle);
  await society.engine.drain();
  const head_seq = society.store.ledgerHead().seq;
  await society.close();
  return { data_dir: society.data_dir, store_dir: join(society.data_dir, 'store'), head_seq };
}

function hashedText(entry: Omit<LedgerEntry, 'hash'>): { json: string; hash: string } {
  const canonical = canonicalEntry(entry);
  const hash = sha256Hex(canonical);
  return { json: `${canonical.slice(0, -1)},"hash":"${hash}"}`, hash };
}

/**
 * What an attacker with write access to the store does: edits one entry's data in the
 * ledger database directly. 'keep_hash' leaves the stored hash as it was; 'rehash'
 * recomputes that entry's hash (the next entry's link then breaks); 'rechain'
 * recomputes every hash and link after it, so the chain is whole again.
 */
export function tamperLedger(
  store_dir: string,
  seq: number,
  edit: (data: Record<string, unknown>) => void,
  mode: 'keep_hash' | 'rehash' | 'rechain',
): void {
  const root = open({ path: store_dir, maxDbs: 8 });
  const ledger = root.openDB<string, number>({ name: 'ledger', keyEncoding: 'uint32', encoding: 'string' });
  try {
    const entry = JSON.parse(ledger.get(seq)!) as LedgerEntry;
    edit(entry.data);
    const { hash: old_hash, ...unhashed } = entry;
    const rewritten = hashedText(unhashed);
    ledger.putSync(seq, mode === 'keep_hash' ? `${rewritten.json.slice(0, -66)}${old_hash}"}` : rewritten.json);
    if (mode !== 'rechain') return;
    let prev_hash = rewritten.hash;
    for (const { key, value } of Array.from(ledger.getRange({ start: seq + 1 }))) {
      const { hash: _old, ...next } = JSON.parse(value) as LedgerEntry;
      const relinked = hashedText({ ...next, prev_hash });
      ledger.putSync(key, relinked.json);
      prev_hash = relinked.hash;
    }
  } finally {
    root.close();
  }
}

/**
 * What an attacker who rewrote the ledger does next if the log is to regenerate it: every
 * log record that names an entry for its proof (engine/store/record_bytes.ts) is made to
 * name that entry's rewritten hash. Without it the rewrite is found when the record is read.
 */
export function rebindLogToLedger(store_dir: string): void {
  const root = open({ path: store_dir, maxDbs: 8 });
  try {
    const log = root.openDB<string, number>({ name: 'log', keyEncoding: 'uint32', encoding: 'string' });
    const ledger = root.openDB<string, number>({ name: 'ledger', keyEncoding: 'uint32', encoding: 'string' });
    for (const { key, value } of Array.from(log.getRange())) {
      const rebound = value.replace(
        /"proof_in_entry":\{"seq":(\d+),"hash":"[0-9a-f]{64}"\}/g,
        (_named, seq: string) => `"proof_in_entry":{"seq":${seq},"hash":"${ledger.get(Number(seq))!.slice(-66, -2)}"}`,
      );
      if (rebound !== value) log.putSync(key, rebound);
    }
  } finally {
    root.close();
  }
}

/** The seq of the first entry of this type by an actor other than the system. */
export function firstEntrySeq(store_dir: string, event_type: string): number {
  const root = open({ path: store_dir, maxDbs: 8, readOnly: true });
  try {
    const ledger = root.openDB<string, number>({ name: 'ledger', keyEncoding: 'uint32', encoding: 'string' });
    for (const { key, value } of ledger.getRange()) {
      const entry = JSON.parse(value) as LedgerEntry;
      if (entry.event_type === event_type && entry.actor !== 'system' && entry.proof) return key;
    }
  } finally {
    root.close();
  }
  throw new Error(`no ${event_type} entry`);
}

/**
 * Every file under a folder with its size and modification time, to show nothing was
 * written. lock.mdb is LMDB's reader table: any reader of a store that has one
 * registers in it, so only its presence and size are compared.
 */
export function folderState(dir: string): Record<string, string> {
  const state: Record<string, string> = {};
  const walk = (path: string, prefix: string) => {
    for (const name of readdirSync(path).sort()) {
      const stat = statSync(join(path, name));
      state[prefix + name] = stat.isDirectory()
        ? 'dir'
        : name === 'lock.mdb'
          ? `${stat.size} bytes`
          : `${stat.size} bytes, mtime ${stat.mtimeMs}`;
      if (stat.isDirectory()) walk(join(path, name), `${prefix}${name}/`);
    }
  };
  walk(dir, '');
  return state;
}

export interface Exited {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** True if the server came up and served (it is then killed). */
  served: boolean;
}

/** Starts `node dist/api/main.js` as an operator would and waits for it to exit; a server that comes up is killed and reported. */
export function startExpectingRefusal(env: Record<string, string>): Promise<Exited> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['dist/api/main.js'], {
      env: { ...process.env, PORT: '0', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    let served = false;
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (!served && stdout.includes('{"listening"')) {
        served = true;
        child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr, served }));
  });
}

/**
 * What `npm start` does with the settings `env`, done in this process: the refusal it would
 * print and its exit status (api/start_refusal.ts, as api/main.ts says it), or served (the
 * society started; it is closed at once). For the cases where the process boundary is not
 * what is tested: a store damaged past its headers is opened by the real process only
 * (startExpectingRefusal), as a bad page there may kill whoever reads it.
 */
export async function startInProcess(env: Record<string, string>): Promise<Exited> {
  // What would have made the process exit 65, 70 or 75 is kept (never process.exit in a test worker) and said as the process would.
  let fatal: unknown;
  try {
    const society = await startSociety(configFromEnv({ ...process.env, PORT: '0', ...env }), {
      log: () => undefined,
      on_fatal: (error) => {
        fatal ??= error;
      },
    });
    await society.close();
    if (fatal !== undefined) return { code: 70, signal: null, stdout: '', stderr: `${String(fatal)}\n`, served: true };
    return { code: null, signal: null, stdout: '', stderr: '', served: true };
  } catch (error) {
    const refusal = startRefusal(error, env.DATA_DIR ?? './data');
    return {
      code: refusal.exit_code,
      signal: null,
      stdout: '',
      stderr: `${refusal.lines.join('\n')}\n`,
      served: false,
    };
  }
}

/** Runs `tessera-operator ARGS` (the built CLI) and collects what it says. */
export function runOperator(args: string[], env: Record<string, string> = {}): Promise<Exited> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['dist/api/operator_cli.js', ...args],
      { env: { ...process.env, ...env } },
      (error, stdout, stderr) => {
        const failed = error as (Error & { code?: number; signal?: NodeJS.Signals }) | null;
        resolve({
          code: failed ? (typeof failed.code === 'number' ? failed.code : null) : 0,
          signal: failed?.signal ?? null,
          stdout,
          stderr,
          served: false,
        });
      },
    );
  });
}
