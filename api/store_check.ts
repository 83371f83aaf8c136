import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { DATA_FILE, type ProbeOutcome } from '../engine/index.js';

/** The compiled probe; under the test runner this module is TypeScript, so point at the build. */
function probeScript(): string {
  const here = fileURLToPath(import.meta.url);
  return here.endsWith('.ts')
    ? here.replace(/\/api\/store_check\.ts$/, '/dist/engine/store/store_probe_main.js')
    : here.replace(/\/api\/store_check\.js$/, '/engine/store/store_probe_main.js');
}

/**
 * Reads the whole store at store_dir in a child process before this process maps
 * it: a truncated or overwritten data.mdb can kill a process by SIGBUS or SIGSEGV,
 * and it must kill the probe, not the server. Never throws for a damaged store; the
 * outcome names the file and what is wrong with it.
 */
export async function checkStoreInChild(store_dir: string): Promise<ProbeOutcome> {
  const file = join(store_dir, DATA_FILE);
  const { stdout, stderr, code, signal } = await new Promise<{
    stdout: string;
    stderr: string;
    code: number | null;
    signal: NodeJS.Signals | null;
  }>((resolve) => {
    execFile(process.execPath, [probeScript(), store_dir], { maxBuffer: 1024 * 1024 }, (error, stdout, stderr) => {
      const failed = error as (Error & { code?: number | string; signal?: NodeJS.Signals | null }) | null;
      resolve({
        stdout,
        stderr,
        code: typeof failed?.code === 'number' ? failed.code : failed ? 1 : 0,
        signal: failed?.signal ?? null,
      });
    });
  });
  if (signal)
    return {
      ok: false,
      file,
      reason: `is damaged: reading it killed the checking process (${signal}); it is truncated or overwritten`,
    };
  const line = stdout.trim().split('\n').at(-1) ?? '';
  try {
    return JSON.parse(line) as ProbeOutcome;
  } catch {
    return {
      ok: false,
      file,
      reason: `could not be checked (the checking process exited with ${code}): ${stderr.trim().split('\n').at(-1) ?? ''}`,
    };
  }
}
