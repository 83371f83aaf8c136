#!/usr/bin/env node
// `npm test`: the whole suite (`vitest run`, with any arguments given), and one more chance for
// a file whose worker got stuck where no test timeout reaches (a native lock, a blocked event
// loop; test/helpers/run_watchdog.ts says what it was doing and stops it). Such a file is run
// again, once and on its own, only when nothing else failed: any failed test still fails the
// run, and so does the stuck file if it fails or sticks again.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const vitest = join('node_modules', 'vitest', 'vitest.mjs');
const folder = mkdtempSync(join(tmpdir(), 'tessera-test-'));
const report_file = join(folder, 'watchdog.json');

function run(args) {
  rmSync(report_file, { force: true });
  const result = spawnSync(process.execPath, [vitest, 'run', ...args], {
    stdio: 'inherit',
    env: { ...process.env, TEST_WATCHDOG_REPORT: report_file },
  });
  let report;
  try {
    report = JSON.parse(readFileSync(report_file, 'utf8'));
  } catch {
    report = undefined; // vitest ended before its reporters' end (a refused option, a killed run)
  }
  return { code: result.status ?? 1, report };
}

const first = run(process.argv.slice(2));
let code = first.code;
const stopped = first.report?.stopped ?? [];
if (code !== 0 && stopped.length > 0 && first.report.failed.length === 0 && first.report.other_errors === 0) {
  const files = stopped.map((stuck) => stuck.file);
  console.error(
    `\nnpm test: nothing failed, but the watchdog stopped a stuck worker; running ${files.join(', ')} once more on its own`,
  );
  code = run(files).code;
}
// Said last, where a log's tail shows it; the whole account is in the [watchdog] lines above.
for (const stuck of stopped) {
  const stack = stuck.main_thread.length > 0 ? stuck.main_thread.join(' < ') : 'no native stack (gdb missing)';
  console.error(`npm test: ${stuck.file} got stuck ${stuck.where}; its main thread: ${stack}`);
}
rmSync(folder, { recursive: true, force: true });
process.exit(code);
