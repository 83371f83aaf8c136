import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';

// A worker stuck where its tests' timeouts cannot reach (test/helpers/run_watchdog.ts): named, looked into, stopped, its file run again.
it('stops a worker whose file shows no sign of life, says where it was, and runs that file once more', async () => {
  const folder = mkdtempSync(join(tmpdir(), 'watchdog-fixture-'));
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
    execFile(
      process.execPath,
      ['scripts/test.mjs', 'test/watchdog_fixture.test.ts'],
      { env: { ...process.env, WATCHDOG_FIXTURE: folder, TEST_QUIET_LIMIT_MINUTES: '0.25' }, timeout: 150_000 },
      (error, stdout, stderr) => resolve({ code: error ? (error.code as number | null) : 0, output: stdout + stderr }),
    );
  });
  expect(output).toMatch(
    /\[watchdog\] test\/watchdog_fixture\.test\.ts has shown no sign of life for [\d.]+ min \(in "blocks its worker/,
  );
  expect(output).toMatch(/its worker \(pid \d+\) is stuck where no test timeout reaches/);
  expect(output).toMatch(/Its threads' kernel waits: /);
  expect(output).toContain('running test/watchdog_fixture.test.ts once more on its own');
  expect(output).toMatch(/npm test: test\/watchdog_fixture\.test\.ts got stuck in "blocks its worker/);
  // The second run passed, and so the whole command did.
  expect(output).toMatch(/Tests\s.*1 passed/);
  expect(code).toBe(0);
}, 180_000);

it('refuses a limit that is not a number of minutes, naming it, instead of stopping every worker at once', async () => {
  const { code, output } = await new Promise<{ code: number | null; output: string }>((resolve) => {
    execFile(
      process.execPath,
      ['scripts/test.mjs', 'test/watchdog_fixture.test.ts'],
      { env: { ...process.env, TEST_QUIET_LIMIT_MINUTES: 'ten' }, timeout: 60_000 },
      (error, stdout, stderr) => resolve({ code: error ? (error.code as number | null) : 0, output: stdout + stderr }),
    );
  });
  expect(output).toContain('TEST_QUIET_LIMIT_MINUTES must be a number of minutes above 0 and at most 1440, not "ten"');
  expect(code).toBe(1);
}, 90_000);
