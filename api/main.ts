#!/usr/bin/env node
import { configFromEnv } from './config.js';
import { StoreIntegrityError } from '../engine/ledger_integrity.js';
import { StartRefusedError } from './data_folder.js';
import { startSociety } from './server.js';

/** npm start: a whole society on the embedded default. */
async function main(): Promise<void> {
  const config = configFromEnv();
  const society = await startSociety(config);
  const { genesis, created_key_file, key_file } = society.founder;
  const lines = [
    `Tessera is serving ${society.url}`,
    `  data folder: ${config.data_dir}`,
    `  founder public key: ${genesis.founder_pubkey}`,
    key_file ? `  founder key file: ${key_file}${created_key_file ? ' (created now; keep it private)' : ''}` : '  founder key: named by the genesis file (held by the operator)',
    `  ledger head: seq ${society.store.ledgerHead().seq}`,
    '  payments: off (every registered agent is an active member)',
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
  if (error instanceof StartRefusedError || error instanceof StoreIntegrityError) {
    // Nothing was served and the data folder was left as it was; the operator decides what to restore.
    console.error(`tessera refused to start: ${error.message}`);
    console.error('  Nothing was served or changed. See "When start-up refuses" in the README: check with tessera-operator replay, restore from a backup.');
    process.exit(1);
  }
  console.error(`tessera failed to start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
