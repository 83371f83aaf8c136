#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { configFromEnv, type Config } from './config.js';
import { startRefusal } from './start_refusal.js';

function publicKeyIn(key_file: string): string {
  try {
    return String((JSON.parse(readFileSync(key_file, 'utf8')) as { public_key?: unknown }).public_key);
  } catch {
    return 'unreadable';
  }
}

/** What a node of a replicated society does now, for the start-up lines. */
function roleLine(node: { leading: boolean; leader_url: string | undefined }): string {
  if (node.leading) return 'leading (the writer)';
  return `following (writes go to ${node.leader_url ?? 'the leader once one holds the lease'})`;
}

/** The data folder as the settings name it, for messages written before the configuration parsed. */
let data_dir_named = `DATA_DIR (${process.env.DATA_DIR || './data'})`;

/** npm start: a whole society on the embedded default. */
async function main(): Promise<void> {
  const config: Config = configFromEnv();
  // The server's modules (a second and more to load) only once the settings are known to be usable:
  // a setting that is refused is said at once.
  const { startSociety } = await import('./server.js');
  data_dir_named = config.data_dir;
  const society = await startSociety(config, {
    // Said the moment it exists: whatever stops start-up later, the operator learns where the Founder's key is.
    on_founder_key: (key_file, public_key) =>
      console.log(
        `Founder key created: ${key_file} (public key ${public_key}); keep it private, it signs as the Founder`,
      ),
  });
  const { created_key_file, key_file } = society.founder;
  const state = society.engine.state;
  // The Founder is whoever the ledger says, whatever key file lies in the folder.
  const founder_pubkey = state.agents.get(state.founder_agent_id)?.pubkey ?? '(unknown)';
  const file_pubkey = key_file ? publicKeyIn(key_file) : undefined;
  const key_line = !key_file
    ? '  founder key: not in the data folder (held by the operator)'
    : file_pubkey === founder_pubkey
      ? `  founder key file: ${key_file}${created_key_file ? ' (created now; keep it private)' : ''}`
      : `  founder key file: ${key_file} holds another key (${file_pubkey}), not the Founder's: it cannot sign as the Founder`;
  const lines = [
    `Tessera is serving ${society.url}`,
    `  data folder: ${config.data_dir}`,
    `  founder public key: ${founder_pubkey}`,
    key_line,
    `  ledger head: seq ${society.store.ledgerHead().seq}`,
    config.payments
      ? `  payments: on (${config.payments.secret_key.startsWith('sk_live_') ? 'live' : 'test'} mode)`
      : '  payments: off (every registered agent is an active member)',
    society.cluster && config.cluster
      ? `  replicated log: ${config.cluster.servers.join(', ')} as node ${config.cluster.node_id}, ${roleLine(society.cluster)}`
      : '  log: embedded (LMDB only)',
  ];
  console.log(lines.join('\n'));
  // One machine-readable line, for scripts and tests that start the server on port 0.
  console.log(JSON.stringify({ listening: society.url }));

  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`received ${signal}; finishing queued acts and closing the store`);
    society.close().then(
      () => process.exit(0),
      (error) => {
        console.error('close failed', error);
        process.exit(1);
      },
    );
  };
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
}

main().catch((error) => {
  const refusal = startRefusal(error, data_dir_named);
  for (const line of refusal.lines) console.error(line);
  process.exit(refusal.exit_code);
});
