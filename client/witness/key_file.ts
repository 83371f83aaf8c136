import { readFile, writeFile } from 'node:fs/promises';
import { SIGNATURE_TYPE_COSIGNATURE_V1 } from '../tlog/cosignature.js';
import { formatSignerKey, generateSignerKey, parseSignerKey, type SignerKey } from '../tlog/note_keys.js';

/**
 * The witness's key file: one line, the cosigner's signer key in the note form
 * `PRIVATE+KEY+<name>+<key id>+base64(0x04 || Ed25519 seed)` (type 0x04: a key that
 * only ever makes cosignature/v1 signatures, never plain note signatures). Not an
 * agent key: a witness is not a member. Made with mode 0600 when absent.
 */
export async function loadOrCreateWitnessKey(path: string, name: string | undefined): Promise<SignerKey> {
  let text: string | undefined;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  if (text === undefined) {
    if (!name) throw new Error(`${path} does not exist: give --name NAME to make a witness key there`);
    const key = await generateSignerKey(name, SIGNATURE_TYPE_COSIGNATURE_V1);
    // 'wx': never overwrite a key that appeared meanwhile.
    await writeFile(path, formatSignerKey(key) + '\n', { mode: 0o600, flag: 'wx' });
    return key;
  }
  let key: SignerKey;
  try {
    key = await parseSignerKey(text.trim());
  } catch (error) {
    throw new Error(`${path}: not a witness key file (${(error as Error).message})`);
  }
  if (key.type !== SIGNATURE_TYPE_COSIGNATURE_V1) throw new Error(`${path}: not a cosignature (type 0x04) key`);
  if (name !== undefined && name !== key.name)
    throw new Error(`${path} is the key of witness ${JSON.stringify(key.name)}, not ${JSON.stringify(name)}`);
  return key;
}
