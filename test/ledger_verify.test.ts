import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import canonicalizeJson from 'canonicalize';
import { generateKey } from '../client/keys.js';
import type { WireEntry } from '../client/ledger_check.js';
import { sha256Hex } from '../client/protocol.js';
import { TesseraClient } from '../client/sdk.js';
import { verifyLedger } from '../client/verify.js';
import { firstProblem, rehashFrom } from './helpers/forged_ledger.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';

const run = promisify(execFile);
let society: TestSociety;
let entries: WireEntry[];

beforeAll(async () => {
  society = await startTestSociety();
  for (let i = 0; i < 4; i++) {
    const backup = await generateKey();
    const key = await generateKey();
    const client = new TesseraClient(society.url, key);
    await client.register(`member-${i}`, {
      declared_runtime: `runtime ${i}`,
      backup_pubkey: i % 2 ? backup.public_key : null,
    });
    if (i % 2 === 0) await client.act('key_backup_register', { backup_pubkey: backup.public_key });
    if (i === 1) await new TesseraClient(society.url).rotateKey(backup, (await generateKey()).public_key, key.agent_id);
  }
  const page = (await (await fetch(`${society.url}/api/v1/ledger`)).json()) as any;
  entries = page.entries;
});
afterAll(async () => society.destroy());

function tamperedValue(value: unknown): unknown {
  if (typeof value === 'number') return value + 1;
  if (typeof value === 'string') return value.length > 0 ? (value[0] === 'A' ? 'B' : 'A') + value.slice(1) : 'x';
  if (value === null) return 'not null';
  if (Array.isArray(value)) return [...value, 1];
  if (typeof value === 'object') return { ...(value as object), injected: true };
  return !value;
}

/** Every leaf path of an entry: top-level fields, data fields and proof fields. */
function fieldPaths(entry: WireEntry): string[][] {
  const paths: string[][] = [];
  for (const [field, value] of Object.entries(entry)) {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      for (const inner of Object.keys(value)) paths.push([field, inner]);
    } else paths.push([field]);
  }
  return paths;
}

function withTamper(chain: WireEntry[], index: number, path: string[]): WireEntry[] {
  const copy = structuredClone(chain);
  let target: any = copy[index];
  for (const part of path.slice(0, -1)) target = target[part];
  const last = path[path.length - 1]!;
  target[last] = tamperedValue(target[last]);
  return copy;
}

describe('the ledger chain', () => {
  it('verifies as served, with proofs on every signed entry', async () => {
    expect(await firstProblem(entries)).toBeUndefined();
    // 4 registrations, 2 backup registrations, 1 rotation: each request's first entry carries its proof.
    expect(entries.filter((entry) => entry.proof).length).toBe(7);
  });

  it('detects tampering of any field of any entry at exactly that seq', async () => {
    let cases = 0;
    for (let index = 0; index < entries.length; index++) {
      for (const path of fieldPaths(entries[index]!)) {
        const problem = await firstProblem(withTamper(entries, index, path));
        expect(problem?.seq, `tampered ${path.join('.')} of seq ${index + 1}`).toBe(index + 1);
        cases++;
      }
    }
    expect(cases).toBeGreaterThan(80);
  });

  it('catches an operator who rewrites an entry and re-hashes the chain after it', async () => {
    const forged = structuredClone(entries);
    const target = forged.findIndex((entry) => entry.event_type === 'key_backup_registered');
    forged[target]!.data.backup_pubkey = (await generateKey()).public_key;
    const problem = await firstProblem(await rehashFrom(forged, target));
    expect(problem).toEqual({ seq: target + 1, reason: expect.stringContaining('signed body') });
  });

  it('catches an identity event whose proof shows only the digest of its body, which would hide what was signed', async () => {
    const forged = structuredClone(entries);
    const target = forged.findIndex((entry) => entry.event_type === 'key_backup_registered');
    const { body, ...signed } = forged[target]!.proof!;
    forged[target]!.proof = { ...signed, body_sha256: await sha256Hex(body!) };
    expect(await firstProblem(await rehashFrom(forged, target))).toEqual({
      seq: target + 1,
      reason: expect.stringContaining('not only its digest'),
    });
  });

  it('catches a proof replayed onto a second entry', async () => {
    const replayed = structuredClone(entries);
    const signed = replayed.findIndex((entry) => entry.event_type === 'key_backup_registered');
    const copy = {
      ...structuredClone(replayed[signed]!),
      seq: replayed.length + 1,
      prev_hash: replayed[replayed.length - 1]!.hash,
    };
    const { hash: _old, ...unhashed } = copy;
    copy.hash = await sha256Hex(canonicalizeJson(unhashed)!);
    replayed.push(copy);
    expect(await firstProblem(replayed)).toEqual({ seq: replayed.length, reason: expect.stringContaining('nonce') });
  });
});

describe('tessera-agent verify', () => {
  let tamper_server: Server;
  let tamper_url: string;

  beforeAll(async () => {
    // A copy of the ledger with one entry changed, served like the real one.
    tamper_server = createServer(async (req, res) => {
      const upstream = (await (await fetch(society.url + req.url)).json()) as any;
      for (const entry of upstream.entries ?? []) if (entry.seq === 5) entry.data.handle = 'mallory';
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(upstream));
    });
    await new Promise<void>((resolve) => tamper_server.listen(0, '127.0.0.1', resolve));
    tamper_url = `http://127.0.0.1:${(tamper_server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => tamper_server.close(() => resolve())));

  it('passes against the running server, page by page', async () => {
    const { stdout } = await run(process.execPath, [
      'dist/client/cli.js',
      'verify',
      '--ledger',
      society.url,
      '--quiet',
    ]);
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, entries_checked: entries.length });
    const small_pages = await verifyLedger(society.url, { page_size: 3 });
    expect(small_pages).toMatchObject({ ok: true, entries_checked: entries.length, head: { seq: entries.length } });
  });

  it('fails against a tampered copy, naming the first bad seq', async () => {
    const failure = await run(process.execPath, [
      'dist/client/cli.js',
      'verify',
      '--ledger',
      tamper_url,
      '--quiet',
    ]).then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failure?.code).toBe(1);
    expect(JSON.parse(failure!.stdout)).toMatchObject({ ok: false, first_bad_seq: 5 });
  });
});
