import { spawn } from 'node:child_process';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers/society.js';

/** Starts the built server on a data folder, returns what it printed up to its listening line, and stops it. */
function startAndStop(data_dir: string): Promise<string> {
  const child = spawn(process.execPath, ['dist/api/main.js'], {
    env: { ...process.env, PORT: '0', DATA_DIR: data_dir },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.stdout!.on('data', (chunk) => {
      stdout += chunk;
      if (stdout.includes('{"listening"')) child.kill('SIGTERM');
    });
    child.once('exit', (code) =>
      stdout.includes('{"listening"') ? resolve(stdout) : reject(new Error(`server exited with ${code}: ${stderr}`)),
    );
  });
}

describe('the Founder key of a society founded already', () => {
  const data_dir = tempDir('tessera-founder-key-');
  const key_file = join(data_dir, 'founder.key.json');
  afterAll(() => rmSync(data_dir, { recursive: true, force: true }));

  it("is never made anew when the key file is gone: the ledger's Founder is printed, and where its key is", async () => {
    const first = await startAndStop(data_dir);
    const founder_pubkey = (JSON.parse(readFileSync(key_file, 'utf8')) as { public_key: string }).public_key;
    expect(first).toContain(`founder public key: ${founder_pubkey}`);
    expect(first).toContain('(created now; keep it private)');

    // The operator moves the key somewhere safer; a restart must not mint a powerless "Founder" key in its place.
    renameSync(key_file, `${key_file}.moved`);
    const second = await startAndStop(data_dir);
    expect(existsSync(key_file)).toBe(false);
    expect(second).toContain(`founder public key: ${founder_pubkey}`);
    expect(second).toContain('founder key: not in the data folder (held by the operator)');
  });

  it("says so when the key file in the folder is not the Founder's", async () => {
    const founder_pubkey = (JSON.parse(readFileSync(`${key_file}.moved`, 'utf8')) as { public_key: string }).public_key;
    const other = {
      ...JSON.parse(readFileSync(`${key_file}.moved`, 'utf8')),
      public_key: 'O2onvM62pC1io6jQKm8Nc2UyFXcd4kOmOsBIoYtZ2ik',
    };
    writeFileSync(key_file, JSON.stringify(other), { mode: 0o600 });
    const third = await startAndStop(data_dir);
    expect(third).toContain(`founder public key: ${founder_pubkey}`);
    expect(third).toContain(`holds another key (${other.public_key}), not the Founder's`);
  });
});
