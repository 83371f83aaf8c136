import { spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toBase64 } from '../client/tlog/base64.js';
import { formatCheckpoint } from '../client/tlog/checkpoint.js';
import { cosignatureTimestamp } from '../client/tlog/cosignature.js';
import { nobleHasher as hasher, type Hash } from '../client/tlog/hasher.js';
import { openNote, signNote } from '../client/tlog/note.js';
import {
  formatVerifierKey,
  generateSignerKey,
  noteSigner,
  noteVerifier,
  parseVerifierKey,
  SIGNATURE_TYPE_ED25519,
  type SignerKey,
} from '../client/tlog/note_keys.js';
import { consistencyProof, hashesForAppend, storedHashIndex, treeHash } from '../client/tlog/stored_tree.js';
import { WitnessClient, WitnessRefusedError } from '../client/tlog/witness_client.js';
import { formatAddCheckpoint, TREE_SIZE_CONTENT_TYPE } from '../client/tlog/witness_protocol.js';
import { WITNESS_LIMITS } from '../api/log/witness_limits.js';

const ORIGIN = 'log.example.test/tessera';

/** A log of `entry i` leaves in the stored-hash layout, with roots and proofs for any size up to its own. */
class TestLog {
  private readonly stored: Hash[] = [];
  private size = 0;
  private readonly read = (level: number, n: number): Hash => this.stored[storedHashIndex(level, n)]!;

  grow(to_size: number): void {
    for (; this.size < to_size; this.size++) {
      expect(this.stored.length).toBe(storedHashIndex(0, this.size));
      const leaf = hasher.leaf(new TextEncoder().encode(`entry ${this.size}`));
      this.stored.push(...hashesForAppend(hasher, this.size, leaf, this.read));
    }
  }

  root(size: number): Hash {
    return treeHash(hasher, size, this.read);
  }

  proof(old_size: number, new_size: number): Hash[] {
    return consistencyProof(hasher, old_size, new_size, this.read);
  }
}

interface WitnessProcess {
  url: string;
  vkey: string;
  process: ChildProcess;
  stop(): Promise<void>;
}

function startWitness(args: string[]): Promise<WitnessProcess> {
  const child = spawn(process.execPath, ['dist/client/cli.js', 'witness', ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      if (!line.startsWith('{"listening"')) return;
      const { listening, vkey } = JSON.parse(line) as { listening: string; vkey: string };
      resolve({
        url: listening,
        vkey,
        process: child,
        stop: () =>
          new Promise((done) => {
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    });
    child.once('exit', (code) => reject(new Error(`witness exited with ${code}: ${stderr}`)));
  });
}

/** Runs the witness command to its end: for flags it must refuse. */
function runWitness(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const child = spawn(process.execPath, ['dist/client/cli.js', 'witness', ...args], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve) => child.once('exit', (code) => resolve({ code, stderr })));
}

describe('tessera-agent witness', () => {
  const folder = mkdtempSync(join(tmpdir(), 'tessera-witness-'));
  const key_file = join(folder, 'witness.key');
  const state_file = join(folder, 'state.json');
  const log = new TestLog();
  let log_key: SignerKey;
  let other_key: SignerKey;
  let empty_log_key: SignerKey;
  let witness: WitnessProcess;

  const checkpointNote = (size: number, root = log.root(size), key = log_key, origin = ORIGIN) =>
    signNote(formatCheckpoint({ origin, size, root_hash: root, extensions: [] }), [noteSigner(key)]);

  const post = async (body: string) => {
    const response = await fetch(`${witness.url}/add-checkpoint`, { method: 'POST', body });
    return { status: response.status, type: response.headers.get('content-type'), body: await response.text() };
  };

  const add = async (old_size: number, size: number, options: { proof?: Hash[]; note?: string } = {}) =>
    post(
      formatAddCheckpoint({
        old_size,
        proof: options.proof ?? (old_size === 0 ? [] : log.proof(old_size, size)),
        checkpoint_note: options.note ?? (await checkpointNote(size)),
      }),
    );

  const witnessArgs = () => [
    '--listen',
    '127.0.0.1:0',
    '--name',
    'witness.example.test/w1',
    '--key',
    key_file,
    '--state',
    state_file,
    '--log',
    formatVerifierKey(log_key),
    '--log',
    formatVerifierKey(empty_log_key),
  ];

  beforeAll(async () => {
    log_key = await generateSignerKey(ORIGIN, SIGNATURE_TYPE_ED25519);
    other_key = await generateSignerKey(ORIGIN, SIGNATURE_TYPE_ED25519);
    empty_log_key = await generateSignerKey('empty.example.test/log', SIGNATURE_TYPE_ED25519);
    log.grow(300);
    witness = await startWitness(witnessArgs());
  });

  afterAll(async () => {
    await witness?.stop();
    rmSync(folder, { recursive: true, force: true });
  });

  it('makes its key file with mode 0600 and prints its cosignature vkey', () => {
    expect(statSync(key_file).mode & 0o777).toBe(0o600);
    const vkey = parseVerifierKey(witness.vkey);
    expect(vkey.name).toBe('witness.example.test/w1');
    expect(vkey.type).toBe(0x04);
  });

  it('cosigns a first checkpoint from old size 0, and the cosignature verifies with its vkey', async () => {
    const note = await checkpointNote(5);
    const answer = await add(0, 5, { note });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatch(/^\u2014 witness\.example\.test\/w1 [A-Za-z0-9+/=]+\n$/);
    const cosigned = await openNote(note + answer.body, [noteVerifier(parseVerifierKey(witness.vkey))]);
    expect(cosigned.verified).toHaveLength(1);
    const seconds = cosignatureTimestamp(cosigned.verified[0]!)!;
    expect(Math.abs(seconds - Date.now() / 1000)).toBeLessThan(60);
    // To a reader trusting only the log, the cosignature is a signature of an unknown key.
    expect((await openNote(note + answer.body, [noteVerifier(log_key)])).unverified).toHaveLength(1);
  });

  it('cosigns a checkpoint consistent with the one it holds, and the same one again', async () => {
    expect((await add(5, 9)).status).toBe(200);
    expect((await add(9, 9)).status).toBe(200);
  });

  it('answers 409 with its size as text/x.tlog.size when old is not the size it holds', async () => {
    for (const old of [0, 5, 10]) {
      const answer = await add(old, 12, old === 0 ? { proof: [] } : {});
      expect(answer).toEqual({ status: 409, type: TREE_SIZE_CONTENT_TYPE, body: '9\n' });
    }
  });

  it("refuses a fork: the size it holds with another root is tlog-witness's 409, naming the size it holds", async () => {
    const forked = await checkpointNote(9, hasher.leaf(new TextEncoder().encode('another history')));
    const answer = await add(9, 9, { note: forked, proof: [] });
    expect(answer).toEqual({ status: 409, type: TREE_SIZE_CONTENT_TYPE, body: '9\n' });
  });

  it('refuses a shrinking log: old above the checkpoint size is 400, the smaller size as old is 409', async () => {
    expect((await add(9, 7, { proof: [] })).status).toBe(400);
    expect((await add(7, 7, { proof: [] })).status).toBe(409);
  });

  it('refuses a consistency proof that does not verify (422)', async () => {
    const proof = log.proof(9, 12);
    proof[0] = hasher.leaf(new Uint8Array([1]));
    expect((await add(9, 12, { proof })).status).toBe(422);
    expect((await add(9, 12, { proof: log.proof(9, 12).slice(1) })).status).toBe(422);
    expect((await add(9, 12, { proof: log.proof(8, 12) })).status).toBe(422);
  });

  it('refuses an unknown origin (404) and a checkpoint its log did not sign (403)', async () => {
    const stranger = await generateSignerKey('stranger.example.test/log', SIGNATURE_TYPE_ED25519);
    expect((await add(0, 5, { note: await checkpointNote(5, log.root(5), stranger, stranger.name) })).status).toBe(404);
    // Signed by another key of the same name: not a trusted signature.
    expect((await add(9, 12, { note: await checkpointNote(12, log.root(12), other_key) })).status).toBe(403);
    // The trusted key's name and id, a signature that fails.
    const note = await checkpointNote(12);
    const line_start = note.lastIndexOf(' ') + 1;
    const tampered =
      note.slice(0, line_start + 10) + (note[line_start + 10] === 'A' ? 'B' : 'A') + note.slice(line_start + 11);
    expect((await add(9, 12, { note: tampered })).status).toBe(403);
  });

  it('refuses malformed requests with 400, and a size-0 checkpoint without the empty root (409: a fork of the empty tree)', async () => {
    const note = await checkpointNote(12);
    for (const body of [
      '',
      'old 9\n',
      `old 09\n${note}`,
      `old 9\n\n${note.replace('\n12\n', '\n012\n')}`,
      `old 9\n\nnot a note\n`,
    ])
      expect((await post(body)).status, JSON.stringify(body)).toBe(400);
    expect((await post(`old 9\nAAAA\n\n${note}`)).status).toBe(400);
    const response = await fetch(`${witness.url}/add-checkpoint`);
    expect(response.status).toBe(405);
    const big = await fetch(`${witness.url}/add-checkpoint`, { method: 'POST', body: 'x'.repeat(70_000) });
    expect(big.status).toBe(413);
    const empty = (root: Hash) => checkpointNote(0, root, empty_log_key, empty_log_key.name);
    expect(await add(0, 0, { note: await empty(log.root(1)) })).toEqual({
      status: 409,
      type: TREE_SIZE_CONTENT_TYPE,
      body: '0\n',
    });
    expect((await add(0, 0, { note: await empty(hasher.empty()) })).status).toBe(200);
  });

  it('serialises concurrent requests for one log: one cosigns, the other gets 409', async () => {
    const [a, b] = await Promise.all([add(9, 20), add(9, 30)]);
    expect([a.status, b.status].sort()).toEqual([200, 409]);
    const held = a.status === 200 ? 20 : 30;
    expect((a.status === 409 ? a : b).body).toBe(`${held}\n`);
    expect((await add(held, 40)).status).toBe(200);
  });

  it('keeps its state across a restart, and serves the cosigned checkpoint for monitors', async () => {
    const state = JSON.parse(readFileSync(state_file, 'utf8')) as {
      logs: Record<string, { size: number; root_hash: string }>;
    };
    expect(state.logs[ORIGIN]).toMatchObject({ size: 40, root_hash: toBase64(log.root(40)) });
    await witness.stop();
    witness = await startWitness(witnessArgs());
    expect(await add(0, 50, { proof: [] })).toEqual({ status: 409, type: TREE_SIZE_CONTENT_TYPE, body: '40\n' });
    const origin_hash = createHash('sha256').update(ORIGIN).digest('hex');
    const monitored = await fetch(`${witness.url}/${origin_hash}/checkpoint`);
    expect(monitored.status).toBe(200);
    const opened = await openNote(await monitored.text(), [
      noteVerifier(log_key),
      noteVerifier(parseVerifierKey(witness.vkey)),
    ]);
    expect(opened.text).toBe(formatCheckpoint({ origin: ORIGIN, size: 40, root_hash: log.root(40), extensions: [] }));
    expect(opened.verified).toHaveLength(2);
    expect((await fetch(`${witness.url}/${'0'.repeat(64)}/checkpoint`)).status).toBe(404);
  });

  it('witness_client: learns the size on 409, retries once with its proof, and verifies the cosignature', async () => {
    const requests: string[] = [];
    const counting: typeof fetch = async (input, init) => {
      requests.push(String(init?.body).split('\n')[0]!);
      return fetch(input, init);
    };
    const client = new WitnessClient({ url: witness.url, vkey: witness.vkey }, { ...WITNESS_LIMITS, fetch: counting });
    const proofs: [number, number][] = [];
    const source = async (old_size: number, new_size: number) => {
      proofs.push([old_size, new_size]);
      return log.proof(old_size, new_size);
    };
    const note = await checkpointNote(60);
    const cosignature = await client.addCheckpoint(note, source);
    expect(requests).toEqual(['old 0', 'old 40']);
    expect(proofs).toEqual([[40, 60]]);
    expect(
      (await openNote(note + cosignature.line, [noteVerifier(parseVerifierKey(witness.vkey))])).verified,
    ).toHaveLength(1);
    await client.addCheckpoint(await checkpointNote(70), source);
    expect(requests.slice(2)).toEqual(['old 60']);
  });

  it('witness_client: a refusal is a WitnessRefusedError with the status, a wrong witness key an error', async () => {
    const client = new WitnessClient({ url: witness.url, vkey: witness.vkey }, WITNESS_LIMITS);
    const proofs = async (old_size: number, new_size: number) => log.proof(old_size, new_size);
    const forked = await checkpointNote(80, hasher.leaf(new TextEncoder().encode('fork')));
    const refusal = await client.addCheckpoint(forked, proofs).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(WitnessRefusedError);
    expect((refusal as WitnessRefusedError).status).toBe(422);
    // The size it holds (70) with another root: the 409 names the size just sent, which the client reads as a fork.
    const same_size = await checkpointNote(70, hasher.leaf(new TextEncoder().encode('fork')));
    const fork = await client.addCheckpoint(same_size, proofs).catch((e: unknown) => e);
    expect(fork).toBeInstanceOf(WitnessRefusedError);
    expect([(fork as WitnessRefusedError).status, (fork as WitnessRefusedError).reason]).toEqual([
      409,
      'it holds size 70 with another root: a fork',
    ]);
    const impostor = await generateSignerKey('witness.example.test/w1', 0x04);
    const fooled = new WitnessClient({ url: witness.url, vkey: formatVerifierKey(impostor) }, WITNESS_LIMITS);
    await expect(fooled.addCheckpoint(await checkpointNote(90), async (o, n) => log.proof(o, n))).rejects.toThrow(
      /no cosignature of key/,
    );
  });

  it('exits 2 with its usage on bad flags', async () => {
    for (const args of [
      [],
      ['--listen', 'nowhere', '--log', formatVerifierKey(log_key)],
      ['--log', 'not-a-vkey'],
      ['--bogus'],
    ]) {
      const { code, stderr } = await runWitness(args);
      expect(code, args.join(' ')).toBe(2);
      expect(stderr).toMatch(/tessera-agent witness --log VKEY/);
    }
  });
});
