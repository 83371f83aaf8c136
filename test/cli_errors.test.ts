import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../client/keys.js';
import { TesseraClient, TesseraError } from '../client/sdk.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';

/** `tessera-agent ...` as a user runs it (the build), with what it said and how it ended. */
function tesseraAgent(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['dist/client/cli.js', ...args], { timeout: 90_000 }, (error, stdout, stderr) =>
      resolve({ code: error ? ((error as { code?: number }).code ?? null) : 0, stdout, stderr }),
    );
  });
}

/** A port nothing listens on: bound once by the system, then let go. */
async function closedPortUrl(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

describe('tessera-agent against a server it cannot reach', () => {
  let folder: string;
  let key_file: string;
  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'tessera-cli-errors-'));
    key_file = join(folder, 'agent.key.json');
    writeFileSync(key_file, JSON.stringify(await generateKey()));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  // act would ride out a failover (the SDK resends for 30 s) before it gives up: told to give up after 2 s here.
  it('names the URL and the refused connection for act and verify, and how to name another', {
    timeout: 120_000,
  }, async () => {
    const url = await closedPortUrl();
    const started_ms = performance.now();
    const [act, verify] = await Promise.all([
      tesseraAgent(['act', 'world_look', '{}', '--key', key_file, '--url', url, '--retry-seconds', '2']),
      tesseraAgent(['verify', '--ledger', url, '--quiet']),
    ]);
    for (const outcome of [act, verify]) {
      expect(outcome.code).toBe(1);
      expect(outcome.stderr).toContain(`could not reach ${url}`);
      expect(outcome.stderr).toContain('ECONNREFUSED');
      expect(outcome.stderr).toContain('--url BASE_URL or TESSERA_URL');
      expect(outcome.stderr).not.toMatch(/tessera-agent: fetch failed$/m);
    }
    // It did send again for the 2 s it was given, and no longer than the default's 30.
    const spent_ms = performance.now() - started_ms;
    expect(spent_ms).toBeGreaterThanOrEqual(2_000);
    expect(spent_ms).toBeLessThan(30_000);
  });

  it('refuses a --retry-seconds that is not a number of seconds from 0 to 600, naming it', async () => {
    for (const given of ['soon', '-1', '601', '1e3']) {
      const act = await tesseraAgent(['act', 'world_look', '{}', '--key', key_file, `--retry-seconds=${given}`]);
      expect(act.code).toBe(2);
      expect(act.stderr).toContain(`--retry-seconds must be a number of seconds from 0 to 600, not "${given}"`);
    }
  });

  it('refuses an option it does not know in one line naming it, not a stack trace', async () => {
    const act = await tesseraAgent(['act', 'world_look', '--retry', '5']);
    expect(act.code).toBe(2);
    expect(act.stderr).toContain("tessera-agent: Unknown option '--retry'");
    expect(act.stderr).toContain('tessera-agent --help lists the commands and their options');
    expect(act.stderr).not.toContain('node:internal');
  });

  it('says a host name that does not resolve is a DNS failure', { timeout: 120_000 }, async () => {
    const url = 'http://tessera-unreachable.invalid:8080';
    const verify = await tesseraAgent(['verify', '--ledger', url, '--quiet']);
    expect(verify.code).toBe(1);
    expect(verify.stderr).toContain(`could not reach ${url}`);
    expect(verify.stderr).toContain('does not resolve (DNS)');
  });
});

describe('a request signed by a key the agent rotated away', () => {
  let society: TestSociety;
  beforeAll(async () => {
    society = await startTestSociety();
  });
  afterAll(() => society.destroy());

  it('is refused SIG_INVALID with a hint naming the rotation and its seq, not the body', async () => {
    const old_key = await generateKey();
    const backup = await generateKey();
    const client = new TesseraClient(society.url, old_key);
    await client.register('rotated-away', { backup_pubkey: backup.public_key });
    const fresh = await generateKey();
    await new TesseraClient(society.url).rotateKey(backup, fresh.public_key, old_key.agent_id);
    const rotation_seq = society.store.ledgerHead().seq;

    const refused = await client.registerBackupKey((await generateKey()).public_key).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(TesseraError);
    const { status, code, body } = refused as TesseraError;
    expect([status, code]).toEqual([401, 'SIG_INVALID']);
    expect(body).toMatchObject({ cause: 'key_rotated', rotated_at_seq: rotation_seq });
    const hint = (body as { hint: string }).hint;
    expect(hint).toContain("no longer the agent's primary key");
    expect(hint).toContain(`seq ${rotation_seq}`);
    expect(hint).not.toContain('default');
    expect(body).not.toHaveProperty('canonical_body');

    // The same request by the current key goes through.
    const renewed = new TesseraClient(society.url, { ...fresh, agent_id: old_key.agent_id });
    await renewed.registerBackupKey((await generateKey()).public_key);
  });

  it("tells a signature by the agent's backup key apart, and keeps the body's hint for a request not as signed", async () => {
    const primary = await generateKey();
    const backup = await generateKey();
    const client = new TesseraClient(society.url, primary);
    await client.register('two-keys', { backup_pubkey: backup.public_key });
    const by_backup = await client
      .signed(
        'POST',
        '/api/v1/keys/backup',
        { backup_pubkey: (await generateKey()).public_key },
        backup,
        primary.agent_id,
      )
      .catch((error: unknown) => error);
    expect((by_backup as TesseraError).body).toMatchObject({ error: 'SIG_INVALID', cause: 'wrong_key' });
    expect((by_backup as TesseraError).body).toHaveProperty('hint', expect.stringContaining('backup key'));

    // A signature altered on the way: the key is the agent's, but nothing it signed matches.
    const tampering: typeof fetch = (input, init) => {
      const headers = { ...(init?.headers as Record<string, string> | undefined) };
      const name = Object.keys(headers).find((header) => header.toLowerCase() === 'x-signature');
      if (name)
        headers[name] = headers[name]!.replace(
          /^(.{5})(.)/,
          (_, head: string, c: string) => head + (c === 'A' ? 'B' : 'A'),
        );
      return fetch(input, { ...init, headers });
    };
    const tampered = await new TesseraClient(society.url, primary, tampering)
      .registerBackupKey((await generateKey()).public_key)
      .catch((error: unknown) => error);
    expect((tampered as TesseraError).body).toMatchObject({ error: 'SIG_INVALID', cause: 'body_mismatch' });
    expect((tampered as TesseraError).body).toHaveProperty('canonical_body');
  });
});
