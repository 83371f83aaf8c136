import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { firstJsonLine } from './child.js';

const run = promisify(execFile);
const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

async function load(base: string, path: string, etag?: string): Promise<number> {
  const { stdout } = await run(process.execPath, [here('./load_client.js'), base, path, '3', '16', ...(etag ? [etag] : [])]);
  return (JSON.parse(stdout) as { rps: number }).rps;
}

/**
 * Public reads over the wire: the real server (embedded store, a few members so the
 * pages have content) against a bare node:http server answering the same bytes, both
 * loaded by a generator in a third process. Returns requests/s per path, both sides.
 */
export async function benchReads(): Promise<Record<string, { server: number; bare: number }>> {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-load-'));
  const server = spawn(process.execPath, [here('../api/main.js')], { env: { ...process.env, DATA_DIR: dir, PORT: '0', READS_PER_SECOND: '1000000', READ_BURST: '1000000' }, stdio: ['ignore', 'pipe', 'inherit'] });
  let bare: ChildProcess | undefined;
  try {
    const base = (await firstJsonLine(server)).listening as string;
    const chunk = '/api/v1/world/chunk/16/16';
    const paths = ['/', '/world.md', chunk];
    const fixtures: Record<string, { type: string; body_base64: string; etag?: string }> = {};
    for (const path of paths) {
      const response = await fetch(base + path);
      fixtures[path] = { type: response.headers.get('content-type')!, body_base64: Buffer.from(await response.arrayBuffer()).toString('base64'), ...(response.headers.get('etag') ? { etag: response.headers.get('etag')! } : {}) };
    }
    bare = spawn(process.execPath, [here('./bare_server.js')], { stdio: ['pipe', 'pipe', 'inherit'] });
    bare.stdin!.end(JSON.stringify(fixtures));
    const bare_base = `http://127.0.0.1:${(await firstJsonLine(bare)).port as number}`;
    const results: Record<string, { server: number; bare: number }> = {};
    for (const path of paths) {
      const etag = path === chunk ? fixtures[path]!.etag : undefined;
      results[path] = { server: await load(base, path, etag), bare: await load(bare_base, path, etag) };
    }
    return results;
  } finally {
    server.kill('SIGTERM');
    bare?.kill('SIGTERM');
    await new Promise((resolve) => server.once('exit', resolve));
    rmSync(dir, { recursive: true, force: true });
  }
}
