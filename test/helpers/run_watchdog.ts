// A vitest reporter that puts a limit on the whole run and says what is slow while it runs.
//
// A test's own timeout cannot fire while its worker is stuck outside JavaScript (a native lock, a
// blocked event loop), and vitest then waits for that worker forever: CI saw nothing but its own
// 90-minute limit, and the output's tail did not name the file. So: every minute, any file running
// longer than `slow_file_minutes` is named with its current test and the process tree under the
// run (a stopped or stuck child shows in its state); past `run_deadline_minutes` the tree is
// killed and the run fails, saying which files never finished.
import { execFileSync } from 'node:child_process';
import type { Reporter, TestCase, TestModule } from 'vitest/node';

const slow_file_minutes = Number(process.env.TEST_SLOW_FILE_MINUTES ?? 6);
const run_deadline_minutes = Number(process.env.TEST_RUN_DEADLINE_MINUTES ?? 35);
const check_every_ms = Math.min(60_000, (run_deadline_minutes * 60_000) / 4);

type Running = { started_ms: number; current_test: string };

export default class RunWatchdog implements Reporter {
  private readonly running = new Map<string, Running>();
  private readonly run_started_ms = Date.now();
  private timer: NodeJS.Timeout | undefined;

  onInit(): void {
    this.timer = setInterval(() => this.check(), check_every_ms);
    this.timer.unref();
  }

  onTestModuleStart(module: TestModule): void {
    this.running.set(module.moduleId, { started_ms: Date.now(), current_test: '(collecting)' });
  }

  onTestCaseReady(test: TestCase): void {
    const entry = this.running.get(test.module.moduleId);
    if (entry) entry.current_test = test.fullName;
  }

  onTestModuleEnd(module: TestModule): void {
    this.running.delete(module.moduleId);
  }

  onTestRunEnd(): void {
    clearInterval(this.timer);
  }

  private check(): void {
    const now_ms = Date.now();
    const slow = [...this.running].filter(([, r]) => now_ms - r.started_ms > slow_file_minutes * 60_000);
    const past_deadline = now_ms - this.run_started_ms > run_deadline_minutes * 60_000;
    if (slow.length === 0 && !past_deadline) return;
    const lines = slow.map(
      ([file, r]) => `  ${relative(file)}: ${minutes(now_ms - r.started_ms)} min, in "${r.current_test}"`,
    );
    if (!past_deadline) {
      process.stderr.write(`[watchdog] files running longer than ${slow_file_minutes} min:\n${lines.join('\n')}\n`);
      return;
    }
    const all = [...this.running].map(
      ([file, r]) => `  ${relative(file)}: ${minutes(now_ms - r.started_ms)} min, in "${r.current_test}"`,
    );
    process.stderr.write(
      `[watchdog] the run passed its limit of ${run_deadline_minutes} min (TEST_RUN_DEADLINE_MINUTES); ` +
        `files that never finished:\n${all.join('\n')}\nprocesses under the run:\n${processTree()}\n`,
    );
    killDescendants(process.pid);
    process.exit(1);
  }
}

function relative(file: string): string {
  const at = file.lastIndexOf('/test/');
  return at >= 0 ? file.slice(at + 1) : file;
}

function minutes(ms: number): string {
  return (ms / 60_000).toFixed(1);
}

function childrenOf(pid: number): number[] {
  try {
    const out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
    return out
      .split('\n')
      .map(Number)
      .filter((n) => n > 0);
  } catch {
    return []; // ps exits 1 when there are none
  }
}

function descendants(pid: number): number[] {
  const found: number[] = [];
  for (const child of childrenOf(pid)) found.push(child, ...descendants(child));
  return found;
}

function processTree(): string {
  const pids = descendants(process.pid);
  if (pids.length === 0) return '  (none)';
  try {
    return execFileSync('ps', ['-o', 'pid,ppid,stat,etime,args', '-p', pids.join(',')], { encoding: 'utf8' })
      .split('\n')
      .map((line) => `  ${line.slice(0, 200)}`)
      .join('\n');
  } catch {
    return '  (ps failed)';
  }
}

function killDescendants(pid: number): void {
  for (const child of descendants(pid)) {
    try {
      process.kill(child, 'SIGKILL');
    } catch {
      // already gone
    }
  }
}
