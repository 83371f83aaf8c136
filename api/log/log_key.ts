import { createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  formatSignerKey,
  formatVerifierKey,
  generateSignerKey,
  parseSignerKey,
  SIGNATURE_TYPE_ED25519,
} from '../../client/tlog/note_keys.js';
import { LOG_KEY_FILE, StartRefusedError } from '../data_folder.js';

/** The DER prefix of a PKCS #8 Ed25519 private key; the 32-byte seed follows it. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * The key the log signs its checkpoints with. Its name is the log's origin, the first
 * line of every checkpoint, fixed when the key is made: a log that changed its origin
 * would be another log to every verifier and witness. Signing uses the runtime's
 * native Ed25519, a checkpoint at every tick that asks for one costing microseconds.
 */
export interface LogKey {
  origin: string;
  key_id: number;
  /** The verifier key a reader pins: `<origin>+<key id hex>+<base64(0x01 || public key)>`. */
  vkey: string;
  sign(message: Uint8Array): Uint8Array;
}

/**
 * Reads the log key from the data folder, or makes it on the first start with the
 * origin given. An origin configured later that differs from the key's is refused:
 * it cannot be changed without starting another log.
 */
export async function loadOrCreateLogKey(data_dir: string, origin: string, configured: boolean): Promise<LogKey> {
  if (!existsSync(join(data_dir, LOG_KEY_FILE))) await createLogKey(data_dir, origin);
  return loadLogKey(data_dir, origin, configured);
}

/** Makes the data folder's log key, signing as the origin given; refused (EEXIST) if the folder holds one. */
export async function createLogKey(data_dir: string, origin: string): Promise<void> {
  // The log's signing key, beside the Founder key (mode 0600), in Go's note signer form: PRIVATE+KEY+<origin>+<id>+<key>.
  const created = await generateSignerKey(origin, SIGNATURE_TYPE_ED25519);
  writeFileSync(join(data_dir, LOG_KEY_FILE), `${formatSignerKey(created)}\n`, { mode: 0o600, flag: 'wx' });
}

/** Reads the data folder's log key (loadOrCreateLogKey, without making one). */
export async function loadLogKey(data_dir: string, origin: string, configured: boolean): Promise<LogKey> {
  const file = join(data_dir, LOG_KEY_FILE);
  let key;
  try {
    key = await parseSignerKey(readFileSync(file, 'utf8').trim());
  } catch (error) {
    throw new StartRefusedError(`${file} is not a log signing key: ${(error as Error).message}`);
  }
  if (key.type !== SIGNATURE_TYPE_ED25519) throw new StartRefusedError(`${file} is not an Ed25519 note key`);
  if (configured && key.name !== origin)
    throw new StartRefusedError(
      `LOG_ORIGIN is ${origin} but the log key in ${file} signs as ${key.name}: a log's origin cannot change (unset LOG_ORIGIN)`,
    );
  const private_key: KeyObject = createPrivateKey({
    key: Buffer.concat([PKCS8_ED25519_PREFIX, key.seed]),
    format: 'der',
    type: 'pkcs8',
  });
  return {
    origin: key.name,
    key_id: key.key_id,
    vkey: formatVerifierKey(key),
    sign: (message) => sign(null, message, private_key),
  };
}

/** The origin a new log takes: the public URL's host and path, then /tessera. */
export function defaultOrigin(public_url: string): string {
  const url = new URL(public_url);
  return `${url.host}${url.pathname.replace(/\/+$/, '')}/tessera`;
}
