#!/usr/bin/env node
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Presets, SingleBar } from 'cli-progress';
import { parseKeyFile } from '../client/keys.js';
import { TesseraClient, TesseraError } from '../client/sdk.js';
import {
  parseCommandLine,
  RETRY_SECONDS_OPTION,
  RETRY_SECONDS_USAGE,
  retryPolicyOf,
  UsageError,
} from '../client/command_line.js';
import { howToNameTheServer, unreachableError } from '../client/unreachable.js';
import { verifyLedger } from '../client/verify.js';
import { DATA_FILE, LmdbStore } from '../engine/index.js';
import { STORE_FOLDER } from './data_folder.js';
import { FOUNDER_KEY_FILE } from './founder.js';
import { checkStoreInChild } from './store_check.js';
import { verifyStore } from './store_verify.js';

const USAGE = `tessera-operator: the operator's command line

  tessera-operator replay PATH                           verify a store read-only: rebuild the state from the log alone,
                                                         compare every entry byte for byte, check every proof; prints the
                                                         state hash, or the first bad seq (exit 1). PATH is a data folder
                                                         (its store/ is read) or a store folder such as a backup
  tessera-operator backup                                take a backup now (recorded on the ledger)
  tessera-operator restore-drill                         restore the latest backup in a scratch folder and compare with the live society
  tessera-operator verify [BASE_URL]                     re-verify the whole ledger
  tessera-operator founder apply MOTION_ID               apply a passed motion
  tessera-operator founder resolve MOTION_ID --reason R  resolve a draft or open motion by Founder action
  tessera-operator founder dispatch                      publish the Dispatch
  tessera-operator grant [--note TEXT]                   a one-time observer grant link

Options: --url BASE_URL (or TESSERA_URL, default http://127.0.0.1:8080), --key FOUNDER_KEY_FILE (default $DATA_DIR/founder.key.json, or ./data/founder.key.json),
  ${RETRY_SECONDS_USAGE}`;

const { values, positionals } = parseCommandLine('tessera-operator', {
  allowPositionals: true,
  options: {
    url: { type: 'string' },
    // The server's own default: the key it made in its data folder.
    key: { type: 'string', default: join(process.env.DATA_DIR ?? 'data', FOUNDER_KEY_FILE) },
    reason: { type: 'string' },
    note: { type: 'string', default: '' },
    help: { type: 'boolean', short: 'h', default: false },
    ...RETRY_SECONDS_OPTION,
  },
});
const DEFAULT_URL = 'http://127.0.0.1:8080';
const base_url = values.url ?? process.env.TESSERA_URL ?? DEFAULT_URL;
/** The server the command talks to, named when it cannot be reached. */
let server_url = base_url;
const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));

async function founder(): Promise<TesseraClient> {
  let text: string;
  try {
    text = readFileSync(values.key!, 'utf8');
  } catch (error) {
    throw new Error(
      `cannot read the Founder key file ${values.key} (${(error as NodeJS.ErrnoException).code ?? String(error)}); give it with --key FILE`,
    );
  }
  return new TesseraClient(base_url, await parseKeyFile(JSON.parse(text)), fetch, {
    retry_policy: retryPolicyOf(values['retry-seconds']),
  });
}

/** The address the operator meant and why it gave no answer, in the agent's command line's words. */
function unreachable(error: unknown): string | undefined {
  const failure = unreachableError(server_url, error);
  return failure && `${failure.message}\n  ${howToNameTheServer(DEFAULT_URL)}`;
}

async function run(): Promise<number> {
  // A bad option is refused before any file is read or any request sent.
  retryPolicyOf(values['retry-seconds']);
  const [command, sub, argument] = positionals;
  switch (command) {
    case 'replay':
      if (!sub) throw new Error('replay needs a data folder or a store folder');
      return replay(sub);
    case 'backup':
      print(await (await founder()).signed('POST', '/operator/backup', undefined));
      return 0;
    case 'restore-drill': {
      const result = await (await founder()).signed<{ outcome: string }>('POST', '/operator/restore-drill', undefined);
      print(result);
      return result.outcome === 'passed' ? 0 : 1;
    }
    case 'verify': {
      server_url = sub ?? base_url;
      const report = await verifyLedger(server_url);
      print(report);
      return report.ok ? 0 : 1;
    }
    case 'founder': {
      const client = await founder();
      if (sub === 'apply' && argument) print(await client.signed('POST', '/enactment/apply', { motion_id: argument }));
      else if (sub === 'resolve' && argument && values.reason)
        print(await client.signed('POST', '/enactment/resolve', { motion_id: argument, reason: values.reason }));
      else if (sub === 'dispatch') print(await client.signed('POST', '/enactment/dispatch', {}));
      else throw new Error('founder apply MOTION_ID | founder resolve MOTION_ID --reason R | founder dispatch');
      return 0;
    }
    case 'grant':
      print(await (await founder()).signed('POST', '/api/v1/grants', { kind: 'observer', note: values.note ?? '' }));
      return 0;
    default:
      console.log(USAGE);
      return command || values.help ? (values.help ? 0 : 2) : 2;
  }
}

/** A data folder holds its store in store/; a store folder (a backup, a copy) holds data.mdb itself. */
function storeFolderOf(path: string): { store_dir: string; found: string } {
  if (existsSync(join(path, DATA_FILE))) return { store_dir: path, found: `a store folder (${DATA_FILE} in ${path})` };
  const inner = join(path, STORE_FOLDER);
  if (existsSync(join(inner, DATA_FILE))) return { store_dir: inner, found: `a data folder (its store in ${inner})` };
  throw new Error(
    `${path} holds no store: neither ${join(path, DATA_FILE)} nor ${join(inner, DATA_FILE)} exists (nothing was created)`,
  );
}

/** Never writes: the store is checked in a child process, then opened read-only. */
async function replay(path: string): Promise<number> {
  const { store_dir, found } = storeFolderOf(path);
  console.error(`tessera-operator: replaying ${found}`);
  const probe = await checkStoreInChild(store_dir);
  if (!probe.ok) throw new Error(`${probe.file} ${probe.reason}`);
  const store = new LmdbStore(store_dir, { read_only: true });
  try {
    const bar = process.stderr.isTTY
      ? new SingleBar({ format: '{step} {bar} {value}/{total}', stream: process.stderr }, Presets.shades_classic)
      : undefined;
    let step = '';
    const report = await verifyStore(store, {
      proofs: true,
      on_progress: (progress) => {
        if (progress.step !== step) {
          bar?.stop();
          step = progress.step;
          bar?.start(progress.total, progress.done, {
            step: { replay: 'replaying ticks', proofs: 'checking proofs', tree: 'rebuilding the Merkle tree' }[step],
          });
        } else bar?.update(progress.done);
      },
    });
    bar?.stop();
    if (!report.ok) {
      print(report);
      console.error(`tessera-operator: the store fails at ledger seq ${report.first_bad_seq}: ${report.reason}`);
      return 1;
    }
    const { state: _state, ...summary } = report;
    print({ store: store_dir, ...summary, ledger_seq: summary.head.seq, ledger_head: summary.head.hash });
    return 0;
  } finally {
    await store.close();
  }
}

run().then(
  (code) => process.exit(code),
  (error) => {
    if (error instanceof TesseraError) print(error.body);
    console.error(
      `tessera-operator: ${unreachable(error) ?? (error instanceof Error ? error.message : String(error))}`,
    );
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
