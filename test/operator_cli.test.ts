import { writeFileSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateKey } from '../client/keys.js';
import { tempDir } from './helpers/society.js';
import { runOperator } from './helpers/stores.js';

/** A loopback port nothing listens on: one the system just handed out and took back. */
async function closedPort(): Promise<number> {
  const server = createServer().listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

const dir = tempDir('tessera-operator-cli-');
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tessera-operator, run by an operator whose server or key is not where the command looks', () => {
  it('names the server it could not reach instead of "fetch failed"', async () => {
    const key = await generateKey();
    const key_file = join(dir, 'founder.key.json');
    writeFileSync(key_file, JSON.stringify({ public_key: key.public_key, private_key: key.private_key }));
    const url = `http://127.0.0.1:${await closedPort()}`;
    // Told to give up after 1 s rather than ride out a failover for the default 30.
    const ran = await runOperator(['backup', '--url', url, '--key', key_file, '--retry-seconds', '1']);
    expect(ran.code).toBe(1);
    // The agent's command line's words: one function says both.
    expect(ran.stderr).toContain(`tessera-operator: could not reach ${url}`);
    expect(ran.stderr).toContain('connection refused');
    expect(ran.stderr).toContain('ECONNREFUSED');
    expect(ran.stderr).toContain('--url BASE_URL or TESSERA_URL');
  });

  it('refuses a bad --retry-seconds and an unknown option in one line each, exit 2', async () => {
    // No Founder key where it looks: the option is refused before the key is read, whatever folder this runs in.
    const bad_seconds = await runOperator(['backup', '--retry-seconds=forever'], {
      DATA_DIR: join(dir, 'no-key-here'),
    });
    expect(bad_seconds.code).toBe(2);
    expect(bad_seconds.stderr).toContain(
      'tessera-operator: --retry-seconds must be a number of seconds from 0 to 600, not "forever"',
    );
    const unknown = await runOperator(['backup', '--force']);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain("tessera-operator: Unknown option '--force'");
    expect(unknown.stderr).toContain('tessera-operator --help lists the commands and their options');
    expect(unknown.stderr).not.toContain('node:internal');
  });

  it('looks for the Founder key in DATA_DIR, and names the file it could not read', async () => {
    const data_dir = join(dir, 'elsewhere');
    const ran = await runOperator(['restore-drill', '--url', 'http://127.0.0.1:9'], { DATA_DIR: data_dir });
    expect(ran.code).toBe(1);
    expect(ran.stderr).toContain(
      `tessera-operator: cannot read the Founder key file ${join(data_dir, 'founder.key.json')} (ENOENT); give it with --key FILE`,
    );
  });
});
