import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';
import { freePort } from '../bench/nats_cluster.js';
import { tempDir } from './helpers/society.js';

/**
 * A node started before its NATS cluster waits for it, logging each try, however long
 * that takes: it neither exits (it once exited 0 after its first try, its waits holding
 * nothing open) nor serves. Found by following docs/scaling.md as a stranger would.
 */
const data_dir = tempDir();
afterAll(() => rmSync(data_dir, { recursive: true, force: true }));

describe('a replicated node started before NATS', () => {
  it('keeps waiting for it, logging each try, and does not exit', async () => {
    const nobody = await freePort();
    const child = spawn(process.execPath, ['dist/api/main.js'], {
      env: { ...process.env, PORT: '0', DATA_DIR: data_dir, LOG_URL: `nats://127.0.0.1:${nobody}`, NODE_ID: 'early' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let exit_code: number | null | undefined;
    child.on('exit', (code) => (exit_code = code));
    const waits: string[] = [];
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (line.includes('"waiting for NATS"')) waits.push(line);
    });
    try {
      const give_up_at = Date.now() + 30_000;
      while (waits.length < 3 && exit_code === undefined && Date.now() < give_up_at)
        await new Promise((resolve) => setTimeout(resolve, 50));
      expect(exit_code).toBeUndefined();
      expect(waits.length).toBeGreaterThanOrEqual(3);
      expect(waits[0]).toContain(`127.0.0.1:${nobody}`);
    } finally {
      child.kill('SIGKILL');
    }
  });
});
