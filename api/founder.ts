import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { z } from 'zod';
import { GenesisSchema, type Genesis, agentIdOf } from '../engine/index.js';

export const FOUNDER_KEY_FILE = 'founder.key.json';

export interface FounderSetup {
  /** Absent when the society is founded already and its Founder key is held outside the data folder: nothing to found with. */
  genesis?: Genesis;
  /** Set when the key was made on this start (first start without a genesis key). */
  created_key_file?: string;
  key_file?: string;
}

/**
 * Reads the genesis file if one is named, and makes sure a Founder key exists:
 * the genesis file may name the Founder's public key (the private key then stays
 * with the operator); otherwise a key is created once in the data folder (mode 0600).
 * A key is only ever created for a society not founded yet: once founded, the
 * Founder is whoever the ledger says, and a key made now would be printed as the
 * Founder's while holding no power (the operator may keep the real one elsewhere).
 */
export function prepareGenesis(
  data_dir: string,
  genesis_file: string | undefined,
  { founded }: { founded: boolean },
): FounderSetup {
  let raw: Record<string, unknown> = {};
  if (genesis_file) {
    try {
      raw = z.record(z.string(), z.unknown()).parse(JSON.parse(readFileSync(genesis_file, 'utf8')));
    } catch (error) {
      throw new Error(`GENESIS_FILE ${genesis_file} is not a JSON object: ${(error as Error).message}`);
    }
  }
  const key_file = join(data_dir, FOUNDER_KEY_FILE);
  let created_key_file: string | undefined;
  if (raw.founder_pubkey === undefined) {
    if (founded && !existsSync(key_file)) return {};
    if (!existsSync(key_file)) {
      writeFileSync(key_file, JSON.stringify(newKeyFile(), null, 2) + '\n', { mode: 0o600, flag: 'wx' });
      created_key_file = key_file;
    }
    raw = { ...raw, founder_pubkey: (JSON.parse(readFileSync(key_file, 'utf8')) as { public_key: string }).public_key };
  }
  const parsed = GenesisSchema.safeParse(raw);
  if (!parsed.success) {
    const problems = parsed.error.issues
      .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
      .join('; ');
    throw new Error(`genesis settings are invalid: ${problems}`);
  }
  return {
    genesis: parsed.data,
    ...(created_key_file ? { created_key_file } : {}),
    ...(existsSync(key_file) ? { key_file } : {}),
  };
}

/** The same key file format the client's keygen writes. */
function newKeyFile(): { agent_id: string; public_key: string; private_key: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const public_key = publicKey.export({ format: 'jwk' }).x as string;
  const private_key = privateKey.export({ format: 'jwk' }).d as string;
  return { agent_id: agentIdOf(public_key), public_key, private_key };
}
