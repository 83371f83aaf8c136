import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { generateKeyPairSync } from 'node:crypto';
import { z } from 'zod';
import { GenesisSchema, type Genesis, agentIdOf } from '../engine/index.js';
import { ConfigurationError } from './config.js';

export const FOUNDER_KEY_FILE = 'founder.key.json';

export interface FounderSetup {
  /** Absent when the society is founded already and its Founder key is held outside the data folder: nothing to found with. */
  genesis?: Genesis;
  /** Set when the key was made on this start (first start without a genesis key). */
  created_key_file?: string;
  key_file?: string;
}

/**
 * The genesis file's settings, read and checked before anything is written to the data
 * folder: a typo there is refused naming GENESIS_FILE, with nothing to clean up after.
 */
export function readGenesisSettings(genesis_file: string | undefined): Record<string, unknown> {
  if (!genesis_file) return {};
  let raw: Record<string, unknown>;
  try {
    raw = z.record(z.string(), z.unknown()).parse(JSON.parse(readFileSync(genesis_file, 'utf8')));
  } catch (error) {
    throw new ConfigurationError(`GENESIS_FILE ${genesis_file} is not a JSON object: ${(error as Error).message}`);
  }
  // The Founder key may be made later, in the data folder; everything else can be judged now.
  const schema = raw.founder_pubkey === undefined ? GenesisSchema.omit({ founder_pubkey: true }) : GenesisSchema;
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ConfigurationError(`GENESIS_FILE ${genesis_file}: ${problemsOf(parsed.error)}`);
  return raw;
}

/**
 * Makes sure a Founder key exists: the genesis settings may name the Founder's public
 * key (the private key then stays with the operator); otherwise a key is created once
 * in the data folder (mode 0600). A key is only ever created for a society not founded
 * yet: once founded, the Founder is whoever the ledger says, and a key made now would
 * be printed as the Founder's while holding no power (the operator may keep the real
 * one elsewhere). `on_created` hears of a new key at once, so it is announced even if
 * a later step of start-up fails.
 */
export function prepareGenesis(
  data_dir: string,
  settings: Record<string, unknown>,
  { founded, on_created }: { founded: boolean; on_created?: (key_file: string, public_key: string) => void },
): FounderSetup {
  let raw = settings;
  const key_file = join(data_dir, FOUNDER_KEY_FILE);
  let created_key_file: string | undefined;
  if (raw.founder_pubkey === undefined) {
    if (founded && !existsSync(key_file)) return {};
    if (!existsSync(key_file)) {
      const made = newKeyFile();
      writeFileSync(key_file, JSON.stringify(made, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
      created_key_file = key_file;
      on_created?.(key_file, made.public_key);
    }
    raw = { ...raw, founder_pubkey: (JSON.parse(readFileSync(key_file, 'utf8')) as { public_key: string }).public_key };
  }
  const parsed = GenesisSchema.safeParse(raw);
  if (!parsed.success) throw new Error(`genesis settings are invalid: ${problemsOf(parsed.error)}`);
  return {
    genesis: parsed.data,
    ...(created_key_file ? { created_key_file } : {}),
    ...(existsSync(key_file) ? { key_file } : {}),
  };
}

function problemsOf(error: z.ZodError): string {
  return error.issues.map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`).join('; ');
}

/** The same key file format the client's keygen writes. */
function newKeyFile(): { agent_id: string; public_key: string; private_key: string } {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const public_key = publicKey.export({ format: 'jwk' }).x as string;
  const private_key = privateKey.export({ format: 'jwk' }).d as string;
  return { agent_id: agentIdOf(public_key), public_key, private_key };
}
