import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { firstJsonLine, generatorRun } from './child.js';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

export interface ReadTarget {
  path: string;
  /** Send the ETag the path answered with, so a current copy is answered 304. */
  revalidate?: boolean;
}

/** How a target is named in results: its path, and whether it revalidates. */
export function readLabel(target: ReadTarget): string {
  return `${target.path}${target.revalidate ? ' (If-None-Match)' : ''}`;
}

export interface ReadComparison {
  server: number;
  bare: number;
  /** CPU each server spent per request (all its threads, Linux only). */
  server_cpu_us: number;
  bare_cpu_us: number;
}

/** One read load of a path (16 keep-alive connections from the generator process): requests a second and the server's CPU per request. */
export async function readLoad(
  base: string,
  pid: number,
  path: string,
  seconds: number,
  etag?: string,
): Promise<{ rps: number; cpu_us: number }> {
  const { stdout, server_cpu_ms } = await generatorRun(
    [here('./load_client.js'), base, path, String(seconds), '16', ...(etag ? [etag] : [])],
    pid,
  );
  const { rps, requests, statuses } = JSON.parse(stdout) as {
    rps: number;
    requests: number;
    statuses: Record<string, number>;
  };
  const expected = etag ? '304' : '200';
  if (Object.keys(statuses).some((status) => status !== expected))
    throw new Error(`GET ${path} answered ${JSON.stringify(statuses)} under load, not only ${expected}`);
  return { rps, cpu_us: (server_cpu_ms * 1000) / requests };
}

/**
 * Public reads over the wire against a running server: each target's bytes are taken
 * from the server, a bare node:http server is started to answer exactly those bytes
 * (and 304 to a matching If-None-Match), and both take the same load from a generator
 * in another process, one target after the other. Requests/s per target, both sides.
 */
export async function compareReads(
  base: string,
  server_pid: number,
  targets: ReadTarget[],
  seconds = 3,
): Promise<Record<string, ReadComparison>> {
  const fixtures: Record<string, { type: string; body_base64: string; etag?: string }> = {};
  for (const { path } of targets) {
    const response = await fetch(base + path);
    if (!response.ok) throw new Error(`read target ${path} answered ${response.status}`);
    fixtures[path] = {
      type: response.headers.get('content-type')!,
      body_base64: Buffer.from(await response.arrayBuffer()).toString('base64'),
      ...(response.headers.get('etag') ? { etag: response.headers.get('etag')! } : {}),
    };
  }
  const bare: ChildProcess = spawn(process.execPath, [here('./bare_server.js')], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  try {
    bare.stdin!.end(JSON.stringify(fixtures));
    const bare_base = `http://127.0.0.1:${(await firstJsonLine(bare)).port as number}`;
    const results: Record<string, ReadComparison> = {};
    for (const { path, revalidate } of targets) {
      const etag = revalidate ? fixtures[path]!.etag : undefined;
      if (revalidate && !etag) throw new Error(`read target ${path} has no ETag to revalidate`);
      const server = await readLoad(base, server_pid, path, seconds, etag);
      const ceiling = await readLoad(bare_base, bare.pid!, path, seconds, etag);
      results[readLabel({ path, revalidate })] = {
        server: server.rps,
        bare: ceiling.rps,
        server_cpu_us: server.cpu_us,
        bare_cpu_us: ceiling.cpu_us,
      };
    }
    return results;
  } finally {
    bare.kill('SIGTERM');
  }
}

/** The reads of npm run bench's table: the front page, a Markdown page, a chunk answering 304. */
export const READ_ROWS: ReadTarget[] = [
  { path: '/' },
  { path: '/world.md' },
  { path: '/api/v1/world/chunk/16/16', revalidate: true },
];

/**
 * The read rows of npm run bench: the real server (embedded store, fresh society)
 * on /, /world.md and a chunk answering 304, each beside the bare server; or other
 * targets, on a data folder `prepare` fills before the server starts.
 */
export async function benchReads(
  targets: ReadTarget[] = READ_ROWS,
  prepare?: (data_dir: string) => Promise<void>,
): Promise<Record<string, ReadComparison>> {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-load-'));
  await prepare?.(dir);
  // LOAD_PROFILE=DIR writes a CPU profile of the server under load into DIR (--cpu-prof), as bench:load does.
  const profile_args = process.env.LOAD_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.LOAD_PROFILE}`] : [];
  const server = spawn(process.execPath, [...profile_args, here('../api/main.js')], {
    env: {
      ...process.env,
      DATA_DIR: dir,
      PORT: '0',
      READS_PER_SECOND: '1000000',
      READ_BURST: '1000000',
      READ_CPU_SHARE: '64',
      READ_BYTES_PER_SECOND: '1073741824',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  try {
    const base = (await firstJsonLine(server)).listening as string;
    return await compareReads(base, server.pid!, targets);
  } finally {
    server.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}
