import { parseArgs } from 'node:util';
import { keyIdHex } from '../tlog/note.js';
import {
  formatVerifierKey,
  noteSigner,
  parseVerifierKey,
  SIGNATURE_TYPE_ED25519,
  type VerifierKey,
} from '../tlog/note_keys.js';
import { loadOrCreateWitnessKey } from './key_file.js';
import { witnessServer } from './server.js';
import { WitnessStateFile } from './state_file.js';
import { Witness } from './witness.js';

export const DEFAULT_WITNESS_PORT = 7380;

export const WITNESS_USAGE = `tessera-agent witness --log VKEY [--log VKEY ...] [--name NAME] [--key FILE] [--state FILE] [--listen HOST:PORT]

  A C2SP tlog-witness: cosigns (cosignature/v1) each checkpoint of the logs named by --log that is consistent
  with the last one it cosigned for that log, and refuses the rest.
  --log VKEY        a log's verifier key, <origin>+<key id>+<base64 key>; repeat for several logs or keys
  --name NAME       the witness's name, needed to make its key (default: the name in the key file)
  --key FILE        the witness key, made with mode 0600 if absent (default witness.key)
  --state FILE      the last checkpoint cosigned per log, JSON (default witness.state.json)
  --listen H:P      where to serve POST /add-checkpoint (default 127.0.0.1:${DEFAULT_WITNESS_PORT}; port 0: any free port)

  Prints one JSON line on start: its address, its cosignature vkey (for the log's operator) and the logs it witnesses.`;

class UsageError extends Error {}

interface WitnessFlags {
  logs: VerifierKey[];
  name: string | undefined;
  key_file: string;
  state_file: string;
  host: string;
  port: number;
}

/** Runs the witness until SIGINT or SIGTERM; the exit code: 2 for bad flags, 1 when it cannot start. */
export async function runWitnessCommand(args: readonly string[]): Promise<number> {
  if (args.includes('--help') || args.includes('-h')) {
    console.log(WITNESS_USAGE);
    return 0;
  }
  let flags: WitnessFlags;
  try {
    flags = parseWitnessFlags(args);
  } catch (error) {
    console.error(`tessera-agent witness: ${(error as Error).message}\n\n${WITNESS_USAGE}`);
    return 2;
  }
  const key = await loadOrCreateWitnessKey(flags.key_file, flags.name);
  const state = await WitnessStateFile.load(flags.state_file);
  const witness = new Witness(noteSigner(key), flags.logs, state, (refusal) =>
    console.log(JSON.stringify({ refused: refusal.status, origin: refusal.origin, reason: refusal.reason })),
  );
  const server = witnessServer(witness);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(flags.port, flags.host, resolve);
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : flags.port;
  const host = flags.host.includes(':') ? `[${flags.host}]` : flags.host;
  console.log(
    JSON.stringify({
      listening: `http://${host}:${port}`,
      vkey: formatVerifierKey(key),
      logs: [...new Set(flags.logs.map((log) => log.name))],
    }),
  );
  await new Promise<void>((resolve) => {
    const stop = () => server.close(() => resolve());
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
  });
  return 0;
}

function parseWitnessFlags(args: readonly string[]): WitnessFlags {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...args],
      allowPositionals: false,
      options: {
        log: { type: 'string', multiple: true, default: [] },
        name: { type: 'string' },
        key: { type: 'string', default: 'witness.key' },
        state: { type: 'string', default: 'witness.state.json' },
        listen: { type: 'string', default: `127.0.0.1:${DEFAULT_WITNESS_PORT}` },
      },
    });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const { values } = parsed;
  if (values.log.length === 0) throw new UsageError('at least one --log VKEY is needed');
  const logs = values.log.map((vkey) => {
    try {
      return parseVerifierKey(vkey);
    } catch (error) {
      throw new UsageError(`--log ${vkey}: ${(error as Error).message}`);
    }
  });
  const not_logs = logs.filter((log) => log.type !== SIGNATURE_TYPE_ED25519);
  if (not_logs.length > 0) throw new UsageError(`--log ${not_logs[0]!.name}: a log key is an Ed25519 (type 0x01) vkey`);
  const ids = logs.map((log) => `${log.name}+${keyIdHex(log.key_id)}`);
  if (new Set(ids).size !== ids.length) throw new UsageError('the same --log key is given twice');
  const listen = /^(.+):(\d{1,5})$/.exec(values.listen);
  const port = Number(listen?.[2]);
  if (!listen || port > 65535) throw new UsageError(`--listen ${values.listen}: not HOST:PORT`);
  return {
    logs,
    name: values.name,
    key_file: values.key,
    state_file: values.state,
    host: listen[1]!.replace(/^\[(.*)\]$/, '$1'),
    port,
  };
}
