import { fork } from 'node:child_process';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import type { StateImage, DrillProgress, DrillResult } from '../../engine/index.js';

export interface DrillJob {
  live_store_path: string;
  data_dir: string;
  /**
   * The live state between two ticks, as a copy: hashing it takes longer than the
   * server may stall a read, so the drill process hashes it. The drill replays the
   * live log up to exactly its tick.
   */
  live: StateImage;
}

export type DrillMessage = { progress: DrillProgress } | { result: DrillResult };

export interface DrillRunOptions {
  log: (line: Record<string, unknown>) => void;
  /** A drill still running after this long is killed and recorded as failed. */
  timeout_ms?: number;
  /** Aborted when the server stops: the drill process is killed. */
  signal?: AbortSignal;
}

// Tests run the TypeScript sources; the child is always the compiled script (npm run build).
const here = fileURLToPath(import.meta.url);
const CHILD_SCRIPT = here.endsWith('.ts')
  ? here.replace(/\/api\/operations\/drill_process\.ts$/, '/dist/api/operations/drill_child.js')
  : here.replace(/drill_process\.js$/, 'drill_child.js');
/** Progress lines at most this often, so a long drill says where it is without flooding the log. */
const PROGRESS_EVERY_MS = 2000;

/**
 * Runs the restore drill in a child process, so the server's event loop keeps
 * answering while it replays, and so a backup that crashes LMDB kills only the
 * child: its death is the drill's failure, with the signal as the reason.
 * prepareJob is called once the process has started.
 */
export function drillInChild(
  prepareJob: () => Promise<DrillJob>,
  { log, timeout_ms = 3_600_000, signal }: DrillRunOptions,
): Promise<DrillResult> {
  return new Promise((resolve) => {
    const child = fork(CHILD_SCRIPT, [], {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
      execArgv: [],
      ...(signal ? { signal, killSignal: 'SIGKILL' as const } : {}),
    });
    let result: DrillResult | undefined;
    let backup_id: string | null = null;
    let stderr = '';
    let last_progress_ms = 0;
    child.stderr!.on('data', (chunk: Buffer) => (stderr = (stderr + chunk.toString()).slice(-1000)));
    child.on('message', (message: DrillMessage) => {
      if ('result' in message) {
        result = message.result;
        return;
      }
      backup_id = message.progress.backup_id;
      if (Date.now() - last_progress_ms < PROGRESS_EVERY_MS) return;
      last_progress_ms = Date.now();
      log({ event: 'restore_drill_progress', ...message.progress });
    });
    let timed_out = false;
    const timer = setTimeout(() => {
      timed_out = true;
      child.kill('SIGKILL');
    }, timeout_ms);
    timer.unref();
    let settled = false;
    const finish = (reason: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(result ?? { outcome: 'failed', detail: reason, backup_id, skipped: [] });
    };
    // A failed fork or an abort also ends in 'exit' (or only 'error' when the process never started).
    child.once('error', (error) => {
      if (child.pid === undefined) finish(`the drill process did not start: ${error.message}`);
    });
    child.once('exit', (code, exit_signal) => {
      const last_line = stderr.trim().split('\n').at(-1);
      if (timed_out) return finish(`the drill did not finish within ${timeout_ms / 1000} s and was stopped`);
      finish(
        exit_signal
          ? `the drill process died by ${exit_signal}${last_line ? `: ${last_line}` : ''}`
          : `the drill process exited with code ${code}${last_line ? `: ${last_line}` : ''}`,
      );
    });
    // Starting the process, copying the live state and sending it each hold the event
    // loop for a moment: each gets a turn of its own (a chain of microtasks would be one turn).
    child.once('spawn', () => {
      nextTurn()
        .then(prepareJob)
        .then(async (job) => {
          await nextTurn();
          child.send(job);
        })
        .catch((error: unknown) => {
          stderr = `the drill could not be prepared: ${error instanceof Error ? error.message : String(error)}`;
          child.kill('SIGKILL');
        });
    });
  });
}
