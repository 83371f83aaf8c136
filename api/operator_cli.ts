#!/usr/bin/env node
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { Presets, SingleBar } from 'cli-progress';
import { parseKeyFile } from '../client/keys.js';
import { TesseraClient, TesseraError } from '../client/sdk.js';
import { verifyLedger } from '../client/verify.js';
import { recoverState } from '../engine/recover.js';
import { stateHash } from '../engine/state.js';
import { LmdbStore } from '../engine/store/lmdb_store.js';

const USAGE = `tessera-operator: the operator's command line

  tessera-operator replay DATA_DIR                       rebuild the state from the log alone; prints the state hash
  tessera-operator backup                                take a backup now (recorded on the ledger)
  tessera-operator restore-drill                         restore the latest backup in a scratch folder and compare with the live society
  tessera-operator verify [BASE_URL]                     re-verify the whole ledger
  tessera-operator founder apply MOTION_ID               apply a passed motion
  tessera-operator founder resolve MOTION_ID --reason R  resolve a draft or open motion by Founder action
  tessera-operator founder dispatch                      publish the Dispatch
  tessera-operator grant [--note TEXT]                   a one-time observer grant link

Options: --url BASE_URL (or TESSERA_URL, default http://127.0.0.1:8080), --key FOUNDER_KEY_FILE (default ./data/founder.key.json)`;

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    url: { type: 'string' },
    key: { type: 'string', default: 'data/founder.key.json' },
    reason: { type: 'string' },
    note: { type: 'string', default: '' },
    help: { type: 'boolean', short: 'h', default: false },
  },
});
const base_url = values.url ?? process.env.TESSERA_URL ?? 'http://127.0.0.1:8080';
const print = (value: unknown) => console.log(JSON.stringify(value, null, 2));

async function founder(): Promise<TesseraClient> {
  return new TesseraClient(base_url, await parseKeyFile(JSON.parse(readFileSync(values.key!, 'utf8'))));
}

async function run(): Promise<number> {
  const [command, sub, argument] = positionals;
  switch (command) {
    case 'replay': {
      if (!sub) throw new Error('replay needs the data folder');
      const store = new LmdbStore(join(sub, 'store'));
      const bar = process.stderr.isTTY ? new SingleBar({ format: 'replaying {bar} tick {value}/{total}', stream: process.stderr }, Presets.shades_classic) : undefined;
      bar?.start(store.lastTick(), 0);
      const state = recoverState(store, { use_snapshot: false, on_tick: (tick) => bar?.update(tick) });
      bar?.stop();
      print({ ticks: state.tick, ledger_seq: state.ledger_head.seq, ledger_head: state.ledger_head.hash, state_hash: stateHash(state) });
      await store.close();
      return 0;
    }
    case 'backup':
      print(await (await founder()).signed('POST', '/operator/backup', undefined));
      return 0;
    case 'restore-drill': {
      const result = await (await founder()).signed<{ outcome: string }>('POST', '/operator/restore-drill', undefined);
      print(result);
      return result.outcome === 'passed' ? 0 : 1;
    }
    case 'verify': {
      const report = await verifyLedger(sub ?? base_url);
      print(report);
      return report.ok ? 0 : 1;
    }
    case 'founder': {
      const client = await founder();
      if (sub === 'apply' && argument) print(await client.signed('POST', '/enactment/apply', { motion_id: argument }));
      else if (sub === 'resolve' && argument && values.reason) print(await client.signed('POST', '/enactment/resolve', { motion_id: argument, reason: values.reason }));
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

run().then(
  (code) => process.exit(code),
  (error) => {
    if (error instanceof TesseraError) print(error.body);
    console.error(`tessera-operator: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
