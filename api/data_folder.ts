import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_FILE, BACKUPS_FOLDER } from '../engine/index.js';
import { FOUNDER_KEY_FILE } from './founder.js';
import { checkStoreInChild } from './store_check.js';

export const STORE_FOLDER = 'store';
/** The transparency log's signing key (api/log/log_key.ts): a trace of a society like the Founder key. */
export const LOG_KEY_FILE = 'log.key';
export const COOKIE_SECRET_FILE = 'cookie.secret';
/** Holds the pid of the server serving the folder, while it does. */
export const SERVER_PID_FILE = 'server.pid';

/** Start-up will not serve this data folder; the message says which file and why. Nothing was changed. */
export class StartRefusedError extends Error {
  override name = 'StartRefusedError';
}

/**
 * Decides, before anything is written, whether the data folder is new (found a
 * society there) or holds one (recover it). A society is only ever founded in a
 * folder with no trace of an earlier one: a Founder key, a cookie secret, backups or
 * a store folder without its data file mean a store was lost or moved, and founding
 * anew there would hand the old Founder key a new society. An existing store is read
 * whole in a child process first, so a damaged file is refused with its name instead
 * of killing the server. A node joining a replicated society (`joining`) is the one
 * exception: it starts with the log key copied from the writer and no store, and
 * takes its history from the replicated log, whose head it must reproduce.
 */
export async function inspectDataFolder(data_dir: string, { joining = false } = {}): Promise<'new' | 'existing'> {
  const store_dir = join(data_dir, STORE_FOLDER);
  if (existsSync(store_dir) && !statSync(store_dir).isDirectory())
    throw new StartRefusedError(`${store_dir} is not a folder: a store is a folder holding ${DATA_FILE}`);
  if (existsSync(join(store_dir, DATA_FILE))) {
    const outcome = await checkStoreInChild(store_dir);
    if (!outcome.ok) throw new StartRefusedError(`${outcome.file} ${outcome.reason}`);
    return 'existing';
  }
  const traces = [FOUNDER_KEY_FILE, COOKIE_SECRET_FILE, ...(joining ? [] : [LOG_KEY_FILE]), BACKUPS_FOLDER].filter(
    (name) => existsSync(join(data_dir, name)),
  );
  if (existsSync(store_dir) && readdirSync(store_dir).length > 0)
    traces.push(`${STORE_FOLDER}/ (holding ${readdirSync(store_dir).join(', ')})`);
  if (traces.length > 0) {
    throw new StartRefusedError(
      `${join(store_dir, DATA_FILE)} is missing, but ${data_dir} holds ${traces.join(', ')} from an earlier society: ` +
        'refusing to found a new society over it. Restore the store from a backup, or start with an empty DATA_DIR to found a new society.',
    );
  }
  return 'new';
}

/**
 * Makes the data folder if there is none, then claims it for this process, or refuses if another live process serves
 * it. LMDB lets several processes write one store, and two engines would each
 * overwrite the other's ticks and entries under the same keys. A pid file left by a
 * killed server names a process that is gone (or this one, when a container reuses
 * the pid) and is taken over. Returns the release, which removes the file.
 */
export function claimDataFolder(data_dir: string): () => void {
  if (existsSync(data_dir) && !statSync(data_dir).isDirectory())
    throw new StartRefusedError(`DATA_DIR ${data_dir} is not a folder`);
  mkdirSync(data_dir, { recursive: true });
  const file = join(data_dir, SERVER_PID_FILE);
  for (;;) {
    try {
      writeFileSync(file, `${process.pid}\n`, { flag: 'wx' });
      return () => {
        if (readPid(file) === process.pid) unlinkSync(file);
      };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = readPid(file);
    if (holder !== undefined && holder !== process.pid && isRunning(holder)) {
      throw new StartRefusedError(
        `${data_dir} is served by another process (pid ${holder}, named in ${file}); stop it first. If no server runs there, remove ${file}.`,
      );
    }
    unlinkSync(file);
  }
}

function readPid(file: string): number | undefined {
  try {
    const pid = Number(readFileSync(file, 'utf8').trim());
    return Number.isSafeInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
