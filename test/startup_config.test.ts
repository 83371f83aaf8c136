import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ChildServerExitedError, startChildServer } from './helpers/child_server.js';

/** EX_CONFIG (sysexits.h): what api/main.ts exits with for a setting it cannot use. */
const EXIT_BAD_CONFIGURATION = 78;

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'tessera-startup-'));
});
afterAll(() => rmSync(folder, { recursive: true, force: true }));

/** A data folder path of its own, not made yet: start-up is what would make it. */
function dataDir(name: string): string {
  return join(folder, name);
}

/** A start that must be refused: its exit code and what it wrote to stderr. */
async function refusedStart(env: Record<string, string>): Promise<ChildServerExitedError> {
  const outcome = await startChildServer(env).then(
    async (server) => {
      await server.kill();
      return new Error(`the server started on ${server.url}`);
    },
    (error: unknown) => error,
  );
  expect(outcome).toBeInstanceOf(ChildServerExitedError);
  return outcome as ChildServerExitedError;
}

/** Nothing of a society in the folder: no Founder key, no store, no pid file (or no folder at all). */
function expectNothingWritten(data_dir: string): void {
  if (!existsSync(data_dir)) return;
  expect(readdirSync(data_dir)).toEqual([]);
}

describe('a setting start-up cannot use', () => {
  it('refuses a HOST that is no address, naming HOST, before anything is written', async () => {
    const data_dir = dataDir('bad-host');
    const refused = await refusedStart({ HOST: '999.1.1.1', DATA_DIR: data_dir });
    expect(refused.code).toBe(EXIT_BAD_CONFIGURATION);
    expect(refused.stderr).toContain('HOST');
    expect(refused.stderr).toContain('999.1.1.1');
    expect(refused.stderr).not.toContain('Invalid URL');
    expectNothingWritten(data_dir);
  });

  it('serves on HOST=::1 with a bracketed URL, or refuses naming HOST where the machine has no IPv6', async () => {
    const data_dir = dataDir('ipv6-host');
    const outcome = await startChildServer({ HOST: '::1', DATA_DIR: data_dir }).then(
      async (server) => {
        await server.kill('SIGTERM');
        return server.url;
      },
      (error: unknown) => error,
    );
    if (typeof outcome === 'string') return expect(outcome).toMatch(/^http:\/\/\[::1\]:\d+$/);
    expect(outcome).toBeInstanceOf(ChildServerExitedError);
    expect((outcome as ChildServerExitedError).stderr).toContain('HOST ::1');
    expectNothingWritten(data_dir);
  });

  it('refuses a genesis file that is not JSON, naming GENESIS_FILE, before anything is written', async () => {
    const data_dir = dataDir('bad-genesis');
    const genesis_file = join(folder, 'genesis.json');
    writeFileSync(genesis_file, '{"society_name": ');
    const refused = await refusedStart({ GENESIS_FILE: genesis_file, DATA_DIR: data_dir });
    expect(refused.code).toBe(EXIT_BAD_CONFIGURATION);
    expect(refused.stderr).toContain(`GENESIS_FILE ${genesis_file}`);
    expectNothingWritten(data_dir);
  });
});

describe('a port already in use', () => {
  let holder: Server;
  let port: number;
  beforeAll(async () => {
    holder = createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    port = (holder.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => holder.close(() => resolve())));

  it('is found before the society is founded: the port named, no key, no store, no pid file', async () => {
    const data_dir = dataDir('port-taken');
    const refused = await refusedStart({ PORT: String(port), DATA_DIR: data_dir });
    expect(refused.code).toBe(EXIT_BAD_CONFIGURATION);
    expect(refused.stderr).toContain(`PORT ${port} is in use`);
    expect(refused.stderr).toContain('Nothing was written');
    expectNothingWritten(data_dir);
  });
});

describe("the Founder's key", () => {
  it('is announced when it is made, and only then', async () => {
    const data_dir = dataDir('founded');
    const first = await startChildServer({ DATA_DIR: data_dir });
    await first.kill('SIGTERM');
    const key_file = join(data_dir, 'founder.key.json');
    const { public_key } = JSON.parse(readFileSync(key_file, 'utf8')) as { public_key: string; private_key: string };
    const announced = first.output.find((line) => line.startsWith('Founder key created:'));
    expect(announced).toContain(key_file);
    expect(announced).toContain(public_key);
    // Never the private key, on any line.
    const { private_key } = JSON.parse(readFileSync(key_file, 'utf8')) as { private_key: string };
    expect(first.output.join('\n')).not.toContain(private_key);

    const again = await startChildServer({ DATA_DIR: data_dir });
    await again.kill('SIGTERM');
    expect(again.output.some((line) => line.startsWith('Founder key created:'))).toBe(false);
    expect(again.output.join('\n')).toContain(`founder public key: ${public_key}`);
  });
});
