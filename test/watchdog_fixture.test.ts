// Not a test of its own: test/run_watchdog.test.ts runs it in a nested `npm test` with
// WATCHDOG_FIXTURE set to a folder, and it then blocks its worker's event loop (as a native
// lock would) the first time, so that the watchdog has a stuck worker to find. Skipped otherwise.
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';

const folder = process.env.WATCHDOG_FIXTURE;

it.runIf(folder)('blocks its worker the first time it runs, and passes the second', () => {
  const ran_before = join(folder!, 'ran_before');
  if (!existsSync(ran_before)) {
    writeFileSync(ran_before, '');
    const until_ms = Date.now() + 5 * 60_000;
    while (Date.now() < until_ms) {
      // no timer, no callback, no report can run in this worker meanwhile
    }
  }
  expect(existsSync(ran_before)).toBe(true);
});
