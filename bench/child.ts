import { execFile, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { promisify } from 'node:util';

/** The first JSON line a child process prints (its address, its port, its result), or the first holding `key`. */
export function firstJsonLine(child: ChildProcess, key?: string): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('{')) return;
      const parsed = JSON.parse(line) as Record<string, unknown>;
      if (key === undefined || key in parsed) resolve(parsed);
    });
    child.once('exit', (code) => reject(new Error(`child exited ${code}`)));
  });
}

/**
 * CPU time a process has used so far, all its threads, in ms (Linux /proc; undefined
 * elsewhere). Per-act CPU is a steadier figure than throughput on a shared machine.
 */
export function processCpuMs(pid: number): number | undefined {
  try {
    // Fields after the command name (which may hold spaces): utime and stime are the 12th and 13th.
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / CLOCK_TICKS_PER_SECOND;
  } catch {
    return undefined;
  }
}

/** Linux's USER_HZ, 100 on every mainstream kernel configuration. */
const CLOCK_TICKS_PER_SECOND = 100;

/**
 * Runs a load generator (`node <args>`) in its own process, so it does not share the
 * loaded server's thread; its output, and the CPU time the server spent meanwhile.
 */
export async function generatorRun(
  args: string[],
  server_pid: number,
): Promise<{ stdout: string; server_cpu_ms: number }> {
  const cpu_before_ms = processCpuMs(server_pid) ?? Number.NaN;
  const { stdout } = await promisify(execFile)(process.execPath, args, { maxBuffer: 1 << 20 });
  return { stdout, server_cpu_ms: (processCpuMs(server_pid) ?? Number.NaN) - cpu_before_ms };
}
