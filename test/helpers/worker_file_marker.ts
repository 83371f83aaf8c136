// vitest setupFiles: each worker process keeps a small file in the watchdog's folder, named by
// its pid, saying which test file and test it is in; written synchronously as each file and test
// starts and ends. Its modification time is the worker's last sign of life, which the watchdog
// (test/helpers/run_watchdog.ts) reads even when the worker is stuck and can report nothing.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, expect } from 'vitest';

const folder = process.env.TEST_WATCHDOG_DIR;

function mark(where: string): void {
  if (!folder) return;
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, String(process.pid)), `${expect.getState().testPath ?? ''}\n${where}`);
}

beforeAll(() => mark('collecting its tests'));
beforeEach(() => mark(`in "${expect.getState().currentTestName ?? ''}"`));
afterEach(() => mark(`after "${expect.getState().currentTestName ?? ''}"`));
