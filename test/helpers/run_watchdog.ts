// A vitest reporter that puts a limit on a stuck worker and on the whole run.
//
// A test's own timeout is a timer in its worker: it cannot fire while the worker is stuck
// outside JavaScript (a native lock, a blocked event loop), and vitest then waits for that
// worker's file forever. CI once saw nothing but its own 90-minute limit, and since vitest
// prints a file only when it ends, the output did not name the file. So: a file that has
// reported nothing (no test started or ended, no hook) for `quiet_limit_minutes` (twice the
// longest test timeout in the suite, 300 s) has a stuck worker; the watchdog says what that
// worker was doing (its threads' kernel waits, a native backtrace where gdb is installed, the
// processes under it) and kills it, so vitest fails that file and the run goes on. Past
// `run_deadline_minutes` the whole tree is killed, naming the files that never finished.
// The files whose worker it stopped are written to TEST_WATCHDOG_REPORT for scripts/test.mjs.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Reporter, ReportedHookContext, TestCase, TestModule } from 'vitest/node';

const quiet_limit_minutes = minutesSetting('TEST_QUIET_LIMIT_MINUTES', 10);
const run_deadline_minutes = minutesSetting('TEST_RUN_DEADLINE_MINUTES', 35);
const check_every_ms = Math.min(30_000, (quiet_limit_minutes * 60_000) / 4);

/** What the reporter last heard of a file, and when. */
type Heard = { at_ms: number; where: string };

export interface WatchdogReport {
  /** Files whose worker the watchdog stopped after it went quiet: where it was, and its main thread's native stack. */
  stopped: { file: string; where: string; main_thread: string[] }[];
  /** Files that failed otherwise. */
  failed: string[];
  /** Errors outside any test but the stopped workers' own exits. */
  other_errors: number;
}

export default class RunWatchdog implements Reporter {
  private readonly heard_of = new Map<string, Heard>();
  private readonly ended = new Set<string>();
  private readonly stopped = new Map<string, WatchdogReport['stopped'][number]>();
  private readonly run_started_ms = Date.now();
  // Each worker says here which file it runs (test/helpers/worker_file_marker.ts); forks inherit the variable.
  private readonly marker_dir = mkdtempSync(join(tmpdir(), 'tessera-watchdog-'));
  private timer: NodeJS.Timeout | undefined;

  constructor() {
    process.env.TEST_WATCHDOG_DIR = this.marker_dir;
  }

  onInit(): void {
    this.timer = setInterval(() => this.check(), check_every_ms);
    this.timer.unref();
  }

  // A worker's reports reach the reporter in batches, so they are a second sign of life beside its marker file.
  onTestCaseReady(test: TestCase): void {
    this.heard(test.module.moduleId, `in "${test.fullName}"`);
  }

  onTestCaseResult(test: TestCase): void {
    this.heard(test.module.moduleId, `after "${test.fullName}"`);
  }

  onHookStart(hook: ReportedHookContext): void {
    const module = hook.entity.type === 'module' ? hook.entity : hook.entity.module;
    this.heard(module.moduleId, `in a ${hook.name} hook`);
  }

  onTestModuleEnd(module: TestModule): void {
    this.ended.add(module.moduleId);
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>, unhandled: ReadonlyArray<{ message?: string }>): void {
    clearInterval(this.timer);
    rmSync(this.marker_dir, { recursive: true, force: true });
    const report_file = process.env.TEST_WATCHDOG_REPORT;
    if (!report_file) return;
    const failed = modules
      .filter((module) => module.state() === 'failed' && !this.stopped.has(module.moduleId))
      .map((module) => relative(module.moduleId));
    // Each stopped worker's exit is one "[vitest-pool]: Worker forks emitted error." of its own.
    const other_errors = unhandled.filter((error) => !error.message?.startsWith('[vitest-pool]: Worker')).length;
    const report: WatchdogReport = { stopped: [...this.stopped.values()], failed, other_errors };
    writeFileSync(report_file, JSON.stringify(report));
  }

  private heard(module_id: string, where: string): void {
    this.heard_of.set(module_id, { at_ms: Date.now(), where });
  }

  private check(): void {
    const now_ms = Date.now();
    const running = this.running();
    for (const worker of running) {
      const heard = this.heard_of.get(worker.file);
      const last_ms = Math.max(worker.marked_ms, heard?.at_ms ?? 0);
      if (this.stopped.has(worker.file) || now_ms - last_ms < quiet_limit_minutes * 60_000) continue;
      this.stop(worker, now_ms - last_ms);
    }
    if (now_ms - this.run_started_ms < run_deadline_minutes * 60_000) return;
    const files = running.map((worker) => `  ${relative(worker.file)} (worker ${worker.pid}), ${worker.where}`);
    say(
      `the run passed its limit of ${run_deadline_minutes} min (TEST_RUN_DEADLINE_MINUTES); ` +
        `files that never finished:\n${files.join('\n')}\nprocesses under the run:\n${processTable(descendants(process.pid))}`,
    );
    for (const pid of descendants(process.pid)) kill(pid);
    process.exit(1);
  }

  /** The workers in the middle of a file, from their marker files. */
  private running(): { pid: number; file: string; where: string; marked_ms: number }[] {
    const found = [];
    for (const name of readdirSync(this.marker_dir)) {
      const path = join(this.marker_dir, name);
      try {
        const [file = '', where = ''] = readFileSync(path, 'utf8').split('\n');
        if (!this.ended.has(file)) found.push({ pid: Number(name), file, where, marked_ms: statSync(path).mtimeMs });
      } catch {
        // being rewritten, or removed at the end
      }
    }
    return found;
  }

  private stop(worker: { pid: number; file: string; where: string }, quiet_ms: number): void {
    const under = descendants(worker.pid);
    const stacks = nativeStacks(worker.pid);
    this.stopped.set(worker.file, {
      file: relative(worker.file),
      where: worker.where,
      main_thread: mainThread(stacks),
    });
    say(
      `${relative(worker.file)} has shown no sign of life for ${minutes(quiet_ms)} min (${worker.where}; ` +
        `TEST_QUIET_LIMIT_MINUTES=${quiet_limit_minutes}): its worker (pid ${worker.pid}) is stuck where no test timeout reaches.\n` +
        `Its threads' kernel waits: ${threadWaits(worker.pid)}\nprocesses under it:\n${processTable(under)}\n` +
        `${stackReport(stacks)}\nStopping it: vitest fails the file and the run goes on.`,
    );
    for (const pid of [...under, worker.pid]) kill(pid);
  }
}

/** A limit in minutes from the environment: a mistaken value (NaN would stop every worker at once) is refused, named. */
function minutesSetting(name: string, fallback: number): number {
  const given = process.env[name];
  if (given === undefined) return fallback;
  const minutes = Number(given);
  if (given.trim() === '' || !Number.isFinite(minutes) || minutes <= 0 || minutes > 24 * 60)
    throw new Error(`${name} must be a number of minutes above 0 and at most 1440, not ${JSON.stringify(given)}`);
  return minutes;
}

function say(text: string): void {
  process.stderr.write(`[watchdog] ${text}\n`);
}

function relative(file: string): string {
  const at = file.lastIndexOf('/test/');
  return at >= 0 ? file.slice(at + 1) : file;
}

function minutes(ms: number): string {
  return (ms / 60_000).toFixed(1);
}

function descendants(pid: number): number[] {
  let children: number[];
  try {
    const out = execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' });
    children = out
      .split('\n')
      .map(Number)
      .filter((n) => n > 0);
  } catch {
    children = []; // ps exits 1 when there are none
  }
  return children.flatMap((child) => [child, ...descendants(child)]);
}

function processTable(pids: number[]): string {
  if (pids.length === 0) return '  (none)';
  try {
    return execFileSync('ps', ['-o', 'pid,ppid,stat,etime,wchan:24,args', '-p', pids.join(',')], { encoding: 'utf8' })
      .trimEnd()
      .split('\n')
      .map((line) => `  ${line.slice(0, 220)}`)
      .join('\n');
  } catch {
    return '  (ps failed)';
  }
}

/** What each thread of a process waits on in the kernel (a futex wait on every thread is a lock). */
function threadWaits(pid: number): string {
  const tasks = `/proc/${pid}/task`;
  if (!existsSync(tasks)) return '(gone)';
  const counts = new Map<string, number>();
  for (const tid of readdirSync(tasks)) {
    let wait = '?';
    try {
      wait = readFileSync(join(tasks, tid, 'wchan'), 'utf8') || 'running';
    } catch {
      // the thread ended meanwhile
    }
    counts.set(wait, (counts.get(wait) ?? 0) + 1);
  }
  return [...counts].map(([wait, n]) => `${wait} x${n}`).join(', ');
}

function stackReport(stacks: string[]): string {
  if (stacks.length === 0) return '(no native stacks: gdb is not installed or could not attach)';
  return `its threads' native stacks (gdb):\n${stacks.slice(0, 200).join('\n')}`;
}

/** `thread apply all bt` of a process, its thread and frame lines only; empty without gdb. */
function nativeStacks(pid: number): string[] {
  try {
    const out = execFileSync('gdb', ['-p', String(pid), '-batch', '-ex', 'thread apply all bt 12'], {
      encoding: 'utf8',
      timeout: 30_000,
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    return out.split('\n').filter((line) => line.startsWith('#') || line.startsWith('Thread'));
  } catch {
    return [];
  }
}

/** The main thread's frames (gdb lists it as Thread 1), the function names only. */
function mainThread(stacks: string[]): string[] {
  const start = stacks.findIndex((line) => line.startsWith('Thread 1 '));
  if (start < 0) return [];
  const frames = [];
  for (const line of stacks.slice(start + 1)) {
    if (line.startsWith('Thread')) break;
    frames.push(line.replace(/^#\d+\s+(0x[0-9a-f]+ in )?/, '').replace(/ \(.*$/, ''));
  }
  return frames.slice(0, 8);
}

function kill(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}
