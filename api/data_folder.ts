import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_FILE } from '../engine/store/lmdb_store.js';
import { FOUNDER_KEY_FILE } from './founder.js';
import { BACKUPS_FOLDER } from './operations/backups.js';
import { checkStoreInChild } from './store_check.js';

export const STORE_FOLDER = 'store';
export const COOKIE_SECRET_FILE = 'cookie.secret';

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
 * of killing the server.
 */
export async function inspectDataFolder(data_dir: string): Promise<'new' | 'existing'> {
  const store_dir = join(data_dir, STORE_FOLDER);
  if (existsSync(join(store_dir, DATA_FILE))) {
    const outcome = await checkStoreInChild(store_dir);
    if (!outcome.ok) throw new StartRefusedError(`${outcome.file} ${outcome.reason}`);
    return 'existing';
  }
  const traces = [FOUNDER_KEY_FILE, COOKIE_SECRET_FILE, BACKUPS_FOLDER].filter((name) => existsSync(join(data_dir, name)));
  if (existsSync(store_dir) && readdirSync(store_dir).length > 0) traces.push(`${STORE_FOLDER}/ (holding ${readdirSync(store_dir).join(', ')})`);
  if (traces.length > 0) {
    throw new StartRefusedError(
      `${join(store_dir, DATA_FILE)} is missing, but ${data_dir} holds ${traces.join(', ')} from an earlier society: ` +
        'refusing to found a new society over it. Restore the store from a backup, or start with an empty DATA_DIR to found a new society.',
    );
  }
  return 'new';
}
