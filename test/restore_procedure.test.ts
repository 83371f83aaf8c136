import { execFile } from 'node:child_process';
import { readFileSync, rmSync, statSync, truncateSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { BACKUPS_FOLDER } from '../engine/store/backups.js';
import { generateKey } from '../client/keys.js';
import { TesseraClient } from '../client/sdk.js';
import { verifyLedger } from '../client/verify.js';
import { startChildServer, type ChildServer } from './helpers/child_server.js';
import { founderClient, tempDir } from './helpers/society.js';

const run = promisify(execFile);
const data_dir = tempDir('tessera-restore-');
let server: ChildServer | undefined;
afterAll(async () => {
  await server?.kill('SIGKILL');
  rmSync(data_dir, { recursive: true, force: true });
});

const env = { DATA_DIR: data_dir, BACKUP_EVERY_SECONDS: '0' };
const replay = async () =>
  JSON.parse((await run(process.execPath, ['dist/api/operator_cli.js', 'replay', data_dir])).stdout);
const sha256sum = async (path: string) => (await run('sha256sum', [path])).stdout.split(' ')[0];

async function register(url: string, handle: string): Promise<string> {
  const key = await generateKey();
  await new TesseraClient(url, key).register(handle);
  return key.agent_id;
}

describe('restoring from a backup, by the steps in the README', () => {
  it('brings back the society as it was at the backup: same head, same state, serving again', async () => {
    server = await startChildServer(env);
    const kept = [await register(server.url, 'kept-1'), await register(server.url, 'kept-2')];
    await server.kill('SIGTERM');
    const at_backup = await replay();

    server = await startChildServer(env);
    const backup = await (await founderClient({ url: server.url, data_dir })).signed<any>(
      'POST',
      '/operator/backup',
      undefined,
    );
    expect(backup.manifest).toMatchObject({ ledger_seq: at_backup.ledger_seq, ledger_hash: at_backup.ledger_head });
    const lost = await register(server.url, 'lost-after-backup');
    await server.kill('SIGTERM');
    // The disaster: the live store is damaged.
    truncateSync(join(data_dir, 'store', 'data.mdb'), 8192);

    // The README's steps, in order.
    const folder = join(data_dir, BACKUPS_FOLDER, backup.backup_id);
    const manifest = JSON.parse(readFileSync(join(folder, 'manifest.json'), 'utf8'));
    expect(statSync(join(folder, 'data.mdb')).size).toBe(manifest.data_bytes);
    expect(await sha256sum(join(folder, 'data.mdb'))).toBe(manifest.data_sha256);
    // The README's lines, as written there.
    await run(
      'sh',
      [
        '-c',
        'B="$DATA_DIR/backups/$ID" && mv "$DATA_DIR/store" "$DATA_DIR/store.damaged-$(date +%s)" && mkdir "$DATA_DIR/store" && cp "$B/data.mdb" "$DATA_DIR/store/data.mdb"',
      ],
      { env: { ...process.env, DATA_DIR: data_dir, ID: backup.backup_id } },
    );
    expect(await sha256sum(join(data_dir, 'store', 'data.mdb'))).toBe(manifest.data_sha256);
    expect(await replay()).toEqual(at_backup);

    server = await startChildServer(env);
    const status = (await (await fetch(`${server.url}/api/v1/status`)).json()) as any;
    expect(status.ledger).toEqual({ seq: manifest.ledger_seq, hash: manifest.ledger_hash });
    expect((await verifyLedger(server.url)).ok).toBe(true);
    const entries = ((await (await fetch(`${server.url}/api/v1/ledger?limit=1000`)).json()) as any).entries;
    const registered = entries
      .filter((entry: any) => entry.event_type === 'agent_registered')
      .map((entry: any) => entry.actor);
    expect(registered).toEqual(expect.arrayContaining(kept));
    expect(registered).not.toContain(lost);
    await register(server.url, 'after-restore');
    await server.kill('SIGTERM');
    const after = await replay();
    expect(after.ledger_seq).toBeGreaterThan(at_backup.ledger_seq);
  }, 90_000);
});
