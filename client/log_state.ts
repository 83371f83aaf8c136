import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import type { RememberedCheckpoint } from './tlog/verify_log.js';

/**
 * What `tessera-agent verify` remembers of each log between runs, per base URL: the
 * verifier key it trusted first (trust on first use, then pinned) and the last
 * checkpoint it checked, which every later checkpoint must extend.
 */
export interface LogMemory {
  vkey: string;
  checkpoint?: RememberedCheckpoint;
}

interface StateFile {
  logs: Record<string, LogMemory>;
}

export function defaultStateFile(): string {
  return join(homedir(), '.tessera', 'log-state.json');
}

export function logKey(base_url: string): string {
  return base_url.replace(/\/+$/, '');
}

function readStateFile(file: string): StateFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { logs: {} };
    throw error;
  }
  const state = JSON.parse(text) as StateFile;
  if (!state || typeof state.logs !== 'object' || state.logs === null)
    throw new Error(`${file} is not a log state file (no "logs" object)`);
  return state;
}

export function recallLog(file: string, base_url: string): LogMemory | undefined {
  return readStateFile(file).logs[logKey(base_url)];
}

/** Written to a temporary file and renamed over the old one, so a crash never leaves half a state file. */
export function rememberLog(file: string, base_url: string, memory: LogMemory): void {
  const state = readStateFile(file);
  state.logs[logKey(base_url)] = memory;
  mkdirSync(dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}.tmp`;
  writeFileSync(temporary, JSON.stringify(state, null, 2) + '\n', { mode: 0o600 });
  renameSync(temporary, file);
}
