import type { ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';

/** The first JSON line a child process prints (its address, its port, its result). */
export function firstJsonLine(child: ChildProcess): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => line.startsWith('{') && resolve(JSON.parse(line) as Record<string, unknown>));
    child.once('exit', (code) => reject(new Error(`child exited ${code}`)));
  });
}
