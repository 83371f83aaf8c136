import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { request, type ClientRequest } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { EVENT_STREAM_LIMITS } from '../api/events/event_limits.js';
import { firstJsonLine } from './child.js';

/**
 * What idle event streams cost the server: `node dist/bench/stream_idle_memory.js [streams]`
 * (default the service's cap, 10,000). A server of its own process (dist/api/main.js, its
 * default limits) is started; this process opens the streams, live and reading, from as
 * many loopback addresses as the per-address cap needs (16 each), and reads the server's
 * resident set before and after, and the kernel's TCP memory. When this machine's open
 * file limit is below what the streams need, it opens what fits and scales the figure,
 * saying so. Prints one JSON line.
 */
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));
const wanted = Number(process.argv[2] ?? EVENT_STREAM_LIMITS.subscribers_max);
/** Descriptors the server and this process need beside the streams. */
const spare_descriptors = 500;
const opened_at_once = 500;
const settle_ms = 3000;

const streams = Math.min(wanted, openFileLimit() - spare_descriptors);
const dir = mkdtempSync(join(tmpdir(), 'tessera-stream-memory-'));
const server = spawn(process.execPath, [here('../api/main.js')], {
  env: { ...process.env, DATA_DIR: join(dir, 'data'), PORT: '0', HOST: '127.0.0.1', BACKUP_EVERY_SECONDS: '0' },
  stdio: ['ignore', 'pipe', 'ignore'],
});
const requests: ClientRequest[] = [];
try {
  const url = (await firstJsonLine(server, 'listening')).listening as string;
  // One stream opened and closed first: the route's code is loaded and compiled before the baseline.
  await openStream(url, '127.0.0.1').then((req) => req.destroy());
  await sleep(settle_ms);
  const before = { rss_mb: rssMb(server.pid!), tcp_mb: kernelTcpMb() };
  for (let first = 0; first < streams; first += opened_at_once) {
    const batch = Array.from({ length: Math.min(opened_at_once, streams - first) }, (_, i) =>
      openStream(url, loopbackAddress(first + i)),
    );
    requests.push(...(await Promise.all(batch)));
  }
  await sleep(settle_ms);
  const after = { rss_mb: rssMb(server.pid!), tcp_mb: kernelTcpMb() };
  const per_stream_kib = ((after.rss_mb - before.rss_mb) * 1024) / streams;
  console.log(
    JSON.stringify({
      streams,
      server_rss_mb: { before: round(before.rss_mb), after: round(after.rss_mb) },
      per_stream_kib: round(per_stream_kib),
      kernel_tcp_mb: { before: round(before.tcp_mb), after: round(after.tcp_mb) },
      ...(streams < wanted
        ? {
            extrapolated: { streams: wanted, server_rss_mb: round(before.rss_mb + (per_stream_kib * wanted) / 1024) },
            why: `the open file limit allows ${streams} streams, not ${wanted}`,
          }
        : {}),
    }),
  );
} finally {
  for (const req of requests) req.destroy();
  const exited = new Promise((resolve) => server.once('exit', resolve));
  server.kill('SIGTERM');
  await exited;
  rmSync(dir, { recursive: true, force: true });
}

/** An idle stream (live, nothing to send but heartbeats), read as it comes, from `local_address`. */
function openStream(url: string, local_address: string): Promise<ClientRequest> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/api/v1/events`, { agent: false, localAddress: local_address }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`stream refused: ${res.statusCode}`));
      res.resume();
      resolve(req);
    });
    req.on('error', reject);
    req.end();
  });
}

/** The i-th stream's address: streams_per_address_max to each of 127.1.0.0 onwards. */
function loopbackAddress(i: number): string {
  const address = Math.floor(i / EVENT_STREAM_LIMITS.streams_per_address_max);
  return `127.${1 + (address >> 16)}.${(address >> 8) & 255}.${address & 255}`;
}

function rssMb(pid: number): number {
  const kib = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]!;
  return Number(kib) / 1024;
}

/** The kernel's memory for all TCP sockets (/proc/net/sockstat, in pages), in MB. */
function kernelTcpMb(): number {
  const pages = /TCP: .* mem (\d+)/.exec(readFileSync('/proc/net/sockstat', 'utf8'))?.[1];
  return (Number(pages ?? Number.NaN) * 4096) / 2 ** 20;
}

/** This process's soft limit on open files (Linux), which the server shares by inheritance. */
function openFileLimit(): number {
  const soft = /Max open files\s+(\d+|unlimited)/.exec(readFileSync('/proc/self/limits', 'utf8'))?.[1];
  return soft === undefined || soft === 'unlimited' ? Number.POSITIVE_INFINITY : Number(soft);
}

function round(value: number): number {
  return Math.round(value * 10) / 10;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
