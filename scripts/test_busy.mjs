#!/usr/bin/env node
// `npm run test:busy`: the whole suite on a busy machine, as a laptop building something else
// is (issue 33). It starts BUSY_PROCESSES (default 2) processes that spin a core each for as
// long as the suite runs, runs `npm test` beside them, and says how long it took and whether it
// passed. Timing bounds in the tests are stretched by the machine's measured pace
// (test/helpers/machine_pace.ts), so the suite is expected to pass here as it does on a quiet machine.
import { spawn } from 'node:child_process';

const busy_processes = Number(process.env.BUSY_PROCESSES ?? 2);
if (!Number.isInteger(busy_processes) || busy_processes < 0 || busy_processes > 64) {
  console.error(`test:busy: BUSY_PROCESSES must be a whole number from 0 to 64, not ${process.env.BUSY_PROCESSES}`);
  process.exit(2);
}

const burners = Array.from({ length: busy_processes }, () =>
  spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
);
const stopBurners = () => {
  for (const burner of burners) burner.kill('SIGKILL');
};
process.on('exit', stopBurners);
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => process.exit(130));

console.log(`test:busy: ${busy_processes} processes spinning a core each; running npm test beside them`);
const started_ms = performance.now();
const suite = spawn('npm', ['test', ...process.argv.slice(2)], { stdio: 'inherit' });
suite.on('exit', (code, signal) => {
  const minutes = ((performance.now() - started_ms) / 60_000).toFixed(1);
  const outcome = code === 0 ? 'passed' : `failed (${signal ?? `exit ${code}`})`;
  console.log(`test:busy: npm test ${outcome} in ${minutes} min beside ${busy_processes} busy processes`);
  process.exit(code ?? 1);
});
