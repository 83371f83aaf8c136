import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { parseKeyFile } from '../../client/keys.js';
import { TesseraClient } from '../../client/sdk.js';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Config } from '../../api/config.js';
import { startSociety, type RunningSociety, type StartOptions } from '../../api/server.js';
import { unwatchAnswers, watchAnswers } from './contract.js';

export interface TestSociety extends RunningSociety {
  data_dir: string;
  /** Bugs the server reported (a 5xx); every test expects none. */
  bugs: string[];
  /** The structured log lines the server wrote. */
  logs: string[];
  /** Moves the test clock forward. */
  advance(ms: number): void;
  now(): number;
  destroy(): Promise<void>;
}

export function tempDir(prefix = 'tessera-test-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function testConfig(data_dir: string, overrides: Partial<Config> = {}): Config {
  return {
    port: 0,
    host: '127.0.0.1',
    public_url: 'http://society.test',
    // Reads weighed as the defaults weigh them (a read buys 2 ms of CPU, 64 KiB of answer), the allowance out of the way.
    read_limits: { reads_per_second: 100_000, burst_reads: 100_000, cpu_ms_per_read: 2, bytes_per_read: 65_536 },
    // Load tests open many connections from 127.0.0.1.
    connection_limits: { connections_per_address_max: 10_000 },
    registration_limits: { registrations_per_hour: 1_000_000, burst_registrations: 1_000_000 },
    nonce_limits: { nonces_per_second: 100_000, burst_nonces: 100_000 },
    backup_every_seconds: 0,
    backups_kept: 3,
    data_dir,
    body_limit_bytes: 64 * 1024,
    snapshot_every_ticks: 5000,
    chunk_workers: 1,
    witnesses: [],
    ...overrides,
  };
}

/** A real society: real LMDB in a temp folder, real HTTP on an ephemeral port, a clock the test moves. */
export async function startTestSociety(
  options: {
    data_dir?: string;
    genesis?: object;
    config?: Partial<Config>;
    start_ms?: number;
    /** Start options beyond the test's clock, reporter and log (a replicated node's in-process log, its fatal stops). */
    start?: Pick<StartOptions, 'cluster_log' | 'on_fatal'>;
  } = {},
): Promise<TestSociety> {
  const data_dir = options.data_dir ?? tempDir();
  let now = options.start_ms ?? Date.parse('2026-11-21T10:00:00.000Z');
  let genesis_file: string | undefined;
  if (options.genesis) {
    genesis_file = join(data_dir, 'genesis.json');
    writeFileSync(genesis_file, JSON.stringify(options.genesis));
  }
  const bugs: string[] = [];
  const logs: string[] = [];
  const society = await startSociety(
    testConfig(data_dir, { ...(genesis_file ? { genesis_file } : {}), ...options.config }),
    {
      clock: () => now,
      report: (error, where) => {
        bugs.push(`${where}: ${String(error)}`);
      },
      on_fatal: (error) => {
        throw error;
      },
      log: (line) => logs.push(JSON.stringify(line)),
      ...options.start,
    },
  );
  // Its JSON answers are checked against the OpenAPI document while it runs (test/helpers/contract_setup.ts).
  watchAnswers(society.url);
  const close = society.close.bind(society);
  let closed = false;
  return Object.assign(society, {
    async close() {
      if (!closed) unwatchAnswers(society.url);
      closed = true;
      await close();
    },
    data_dir,
    bugs,
    logs,
    advance(ms: number) {
      now += ms;
    },
    now: () => now,
    async destroy() {
      await society.close();
      rmSync(data_dir, { recursive: true, force: true });
    },
  });
}

/** The society's Founder, signing with the key file the society made in its data folder. */
export async function founderClient(society: { url: string; data_dir: string }): Promise<TesseraClient> {
  return new TesseraClient(
    society.url,
    await parseKeyFile(JSON.parse(readFileSync(join(society.data_dir, 'founder.key.json'), 'utf8'))),
  );
}
