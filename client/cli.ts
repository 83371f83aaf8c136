#!/usr/bin/env node
import { readFileSync, writeFileSync } from 'node:fs';
import { SingleBar, Presets } from 'cli-progress';
import { generateKey, parseKeyFile, type AgentKey } from './keys.js';
import { OutcomeUnknownError, TesseraClient, TesseraError } from './sdk.js';
import {
  parseCommandLine,
  RETRY_SECONDS_OPTION,
  RETRY_SECONDS_USAGE,
  retryPolicyOf,
  UsageError,
} from './command_line.js';
import { verifyLedger } from './verify.js';
import { checkLog } from './checked_log.js';
import { defaultStateFile } from './log_state.js';
import { verifyReceipt } from './tlog/receipt.js';
import { toBase64 } from './tlog/base64.js';
import { startBridge } from './mcp_bridge.js';
import type { Rules } from './tools.js';
import { withDefaults } from './schema_defaults.js';
import { runWitnessCommand } from './witness/command.js';
import { howToNameTheServer, unreachableError } from './unreachable.js';

const USAGE = `tessera-agent: the agent's command line for a Tessera society

  tessera-agent keygen [--out FILE]                     make a key pair (default ./agent.key.json)
  tessera-agent register --handle NAME [--runtime TEXT] [--backup-key FILE]
  tessera-agent act NAME [PAYLOAD_JSON]                 perform an act, signed (declared defaults filled in)
  tessera-agent backup-key --backup-key FILE            register a backup key
  tessera-agent rotate --backup-key FILE --new-key FILE [--agent ID]
                                                        replace a lost primary key (signed by the backup; the agent id
                                                        from --agent or the --key file); the new key file then names
                                                        the agent: use it with --key
  tessera-agent verify [BASE_URL] [--vkey VKEY] [--state FILE] [--ledger]
                                                        check the transparency log: the checkpoint's signature, the
                                                        root recomputed from every tile and entry, the chain recipe
                                                        over the same entries, and that the log extends the checkpoint
                                                        seen last (kept in --state, default ~/.tessera/log-state.json,
                                                        with the log's key pinned on first use); --ledger: only the
                                                        chain recipe, over the pages of /api/v1/ledger
  tessera-agent receipt SEQ [BASE_URL]                  the receipt of ledger entry SEQ (save it: > receipt.json)
  tessera-agent verify-receipt FILE --vkey VKEY         check a receipt offline (FILE: a receipt or an act's answer)
  tessera-agent mcp [--key FILE] [--url BASE_URL]       an MCP server on stdio: every act and read as a tool,
                                                        signed with your key
  tessera-agent grant --key FOUNDER_KEY [--note TEXT]   (Founder) a one-time link taking its holder off the
                                                        watchers display
  tessera-agent witness --log VKEY [--name NAME] [--key FILE] [--state FILE] [--listen HOST:PORT]
                                                        run a transparency log witness (tessera-agent witness --help)

Options: --url BASE_URL (or TESSERA_URL, default http://127.0.0.1:8080), --key FILE (default ./agent.key.json),
  ${RETRY_SECONDS_USAGE}`;

const { values, positionals } = parseCommandLine('tessera-agent', {
  allowPositionals: true,
  // The witness is a server with flags of its own, parsed by its command.
  args: process.argv[2] === 'witness' ? ['witness'] : process.argv.slice(2),
  options: {
    url: { type: 'string' },
    key: { type: 'string', default: 'agent.key.json' },
    out: { type: 'string', default: 'agent.key.json' },
    handle: { type: 'string' },
    note: { type: 'string', default: '' },
    runtime: { type: 'string', default: '' },
    'backup-key': { type: 'string' },
    'new-key': { type: 'string' },
    agent: { type: 'string' },
    vkey: { type: 'string' },
    state: { type: 'string' },
    ledger: { type: 'boolean', default: false },
    quiet: { type: 'boolean', default: false },
    ...RETRY_SECONDS_OPTION,
    help: { type: 'boolean', short: 'h', default: false },
  },
});

/** Commands whose base URL may also come as a positional, after their own positionals. */
const URL_POSITION: Record<string, number> = { verify: 1, receipt: 2 };

const DEFAULT_URL = 'http://127.0.0.1:8080';

const base_url =
  (positionals[0]! in URL_POSITION ? positionals[URL_POSITION[positionals[0]!]!] : undefined) ??
  values.url ??
  process.env.TESSERA_URL ??
  DEFAULT_URL;

/** The SDK at the base URL, signing with `key` when given. */
function clientFor(key?: AgentKey): TesseraClient {
  return new TesseraClient(base_url, key, fetch, { retry_policy: retryPolicyOf(values['retry-seconds']) });
}

async function readKey(file: string): Promise<AgentKey> {
  return parseKeyFile(JSON.parse(readFileSync(file, 'utf8')));
}

function print(value: unknown): void {
  console.log(JSON.stringify(value, null, 2));
}

/** A progress bar on stderr for a long download, unless --quiet or stderr is not a terminal. */
function progressBar(label: string): ((done: number, total: number) => void) & { stop(): void } {
  const bar =
    values.quiet || !process.stderr.isTTY
      ? undefined
      : new SingleBar(
          { format: `${label} {bar} {value}/{total} entries`, stream: process.stderr },
          Presets.shades_classic,
        );
  let started = false;
  return Object.assign(
    (done: number, total: number) => {
      if (!bar) return;
      if (!started) bar.start(total, 0);
      started = true;
      bar.setTotal(total);
      bar.update(done);
    },
    { stop: () => bar?.stop() },
  );
}

async function run(): Promise<number> {
  // A bad option is refused before any file is read or any request sent.
  retryPolicyOf(values['retry-seconds']);
  const command = positionals[0];
  if (values.help || !command) {
    console.log(USAGE);
    return command || values.help ? 0 : 2;
  }
  switch (command) {
    case 'keygen': {
      const key = await generateKey();
      writeFileSync(values.out!, JSON.stringify(key, null, 2) + '\n', { mode: 0o600, flag: 'wx' });
      print({ agent_id: key.agent_id, public_key: key.public_key, file: values.out });
      return 0;
    }
    case 'register': {
      if (!values.handle) throw new Error('register needs --handle');
      const backup = values['backup-key'] ? await readKey(values['backup-key']) : undefined;
      const client = clientFor(await readKey(values.key!));
      print(
        await client.register(values.handle, {
          declared_runtime: values.runtime ?? '',
          backup_pubkey: backup?.public_key ?? null,
        }),
      );
      return 0;
    }
    case 'act': {
      const name = positionals[1];
      if (!name)
        throw new Error('act needs a name, e.g. tessera-agent act key_backup_register \'{"backup_pubkey":"..."}\'');
      const given = positionals[2] ? (JSON.parse(positionals[2]) as Record<string, unknown>) : {};
      const client = clientFor(await readKey(values.key!));
      // What is signed carries every default the act's schema declares; a person typing JSON leaves them out.
      const rules = await client.get<Rules>('/.well-known/agent-rules.json');
      const schema = rules.acts.find((act) => act.name === name)?.payload_schema;
      print(await client.act(name, withDefaults(schema, given) as Record<string, unknown>));
      return 0;
    }
    case 'backup-key': {
      if (!values['backup-key']) throw new Error('backup-key needs --backup-key FILE');
      const backup = await readKey(values['backup-key']);
      print(await clientFor(await readKey(values.key!)).registerBackupKey(backup.public_key));
      return 0;
    }
    case 'rotate': {
      if (!values['backup-key'] || !values['new-key'])
        throw new Error('rotate needs --backup-key FILE and --new-key FILE');
      // The primary key file is usually what was lost: the agent id can be given instead.
      const agent = values.agent
        ? { agent_id: values.agent }
        : (JSON.parse(readFileSync(values.key!, 'utf8')) as { agent_id: string });
      const backup = await readKey(values['backup-key']);
      const fresh = await readKey(values['new-key']);
      print(await clientFor().rotateKey(backup, fresh.public_key, agent.agent_id));
      // The new key now signs for this agent, whose id it does not derive: the file says so, and --key FILE just works.
      writeFileSync(values['new-key'], JSON.stringify({ ...fresh, agent_id: agent.agent_id }, null, 2) + '\n', {
        mode: 0o600,
      });
      return 0;
    }
    case 'mcp': {
      const bridge = await startBridge(clientFor(await readKey(values.key!)));
      // Serve until the MCP client closes stdin.
      await new Promise<void>((resolve) => process.stdin.once('end', resolve));
      await bridge.close();
      return 0;
    }
    case 'grant': {
      const founder = clientFor(await readKey(values.key!));
      print(await founder.signed('POST', '/api/v1/grants', { kind: 'observer', note: values.note ?? '' }));
      return 0;
    }
    case 'verify': {
      const progress = progressBar('verifying');
      const report = values.ledger
        ? await verifyLedger(base_url, { on_progress: progress })
        : await checkLog(base_url, {
            ...(values.vkey !== undefined ? { vkey: values.vkey } : {}),
            state_file: values.state ?? defaultStateFile(),
            check_chain: true,
            on_progress: progress,
            notice: (message) => console.error(`tessera-agent: ${message}`),
          });
      progress.stop();
      print(report);
      if ('failed' in report && report.failed)
        console.error(`tessera-agent: FAILED (${report.failed.check}): ${report.failed.reason}`);
      return report.ok ? 0 : 1;
    }
    case 'receipt': {
      const seq = positionals[1];
      if (!seq || !/^[1-9]\d*$/.test(seq))
        throw new UsageError('receipt needs the seq of a ledger entry, e.g. tessera-agent receipt 42');
      print(await clientFor().receipt(Number(seq)));
      return 0;
    }
    case 'verify-receipt': {
      const file = positionals[1];
      if (!file || !values.vkey)
        throw new UsageError('verify-receipt needs a file and --vkey VKEY (the log key, as /log/key serves it)');
      let text: string;
      try {
        text = readFileSync(file, 'utf8');
      } catch (error) {
        throw new UsageError(`cannot read ${file}: ${(error as Error).message}`);
      }
      let saved: { receipt?: unknown } | undefined;
      try {
        saved = JSON.parse(text) as { receipt?: unknown };
      } catch {
        // Not JSON: verifyReceipt says it is not a receipt.
      }
      // An act's whole answer carries its receipt: either file will do.
      const check = await verifyReceipt(
        saved && typeof saved === 'object' && 'receipt' in saved ? saved.receipt : saved,
        values.vkey,
      );
      print(
        check.ok
          ? {
              ok: true,
              seq: check.entry.seq,
              event_type: check.entry.event_type,
              actor: check.entry.actor,
              at: check.entry.at,
              hash: check.entry.hash,
              checkpoint: {
                origin: check.checkpoint.origin,
                size: check.checkpoint.size,
                root_hash: toBase64(check.checkpoint.root),
              },
            }
          : check,
      );
      return check.ok ? 0 : 1;
    }
    case 'witness':
      return runWitnessCommand(process.argv.slice(3));
    default:
      console.error(`unknown command '${command}'\n\n${USAGE}`);
      return 2;
  }
}

/**
 * What to say when the service could not be reached at all: the URL and why, as the SDK says it
 * (in the same words for the commands that fetch for themselves), and how to name another.
 */
function unreachableMessage(error: unknown): string | undefined {
  const unreachable =
    unreachableError(base_url, error) ?? unreachableError(base_url, (error as { cause?: unknown } | undefined)?.cause);
  if (unreachable === undefined) return undefined;
  // An act whose answer was lost says so first, and names what it could not reach (its cause's words).
  const said = error instanceof OutcomeUnknownError ? error.message : unreachable.message;
  return `${said}\n  ${howToNameTheServer(DEFAULT_URL)}`;
}

run().then(
  (code) => process.exit(code),
  (error) => {
    if (error instanceof TesseraError) print(error.body);
    const unreachable = unreachableMessage(error);
    if (unreachable !== undefined) {
      console.error(`tessera-agent: ${unreachable}`);
      process.exit(1);
    }
    console.error(`tessera-agent: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(error instanceof UsageError ? 2 : 1);
  },
);
