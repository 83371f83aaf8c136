import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';

/** The first JSON line a child process prints (its address, its port, its result). */
export function firstJsonLine(child: ChildProcess): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => line.startsWith('{') && resolve(JSON.parse(line) as Record<string, unknown>));
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
