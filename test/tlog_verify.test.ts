import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../client/keys.js';
import { TesseraClient, type ActAnswer } from '../client/sdk.js';
import { fromBase64, toBase64 } from '../client/tlog/base64.js';
import { formatCheckpoint } from '../client/tlog/checkpoint.js';
import { nobleHasher, type Hash } from '../client/tlog/hasher.js';
import { signNote } from '../client/tlog/note.js';
import { generateSignerKey, formatVerifierKey, noteSigner, SIGNATURE_TYPE_ED25519 } from '../client/tlog/note_keys.js';
import { consistencyProof, treeHash } from '../client/tlog/stored_tree.js';
import { encodeBundle, ENTRIES_LEVEL, parseTilePath, tileExists, TILE_WIDTH } from '../client/tlog/tile_path.js';
import { verifyReceipt, type Receipt } from '../client/tlog/receipt.js';
import { verifyLog } from '../client/tlog/verify_log.js';
import { editedEntry, forgeLog, logEntries, startLogProxy, type LogProxy } from './helpers/log_proxy.js';
import { startTestSociety, tempDir, type TestSociety } from './helpers/society.js';

const CLI = resolve('dist/client/cli.js');
const exec = promisify(execFile);

/** Runs the installed command line's script; resolves with the exit code instead of throwing on 1 and 2. */
async function cli(args: string[], options: { cwd?: string } = {}) {
  return exec(process.execPath, [CLI, ...args], { cwd: options.cwd, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: error.stdout,
      stderr: error.stderr,
    }),
  );
}

let society: TestSociety;
let member: TesseraClient;
let vkey: string;
let answer: Required<ActAnswer>;
const work = tempDir('tessera-tlog-verify-');

beforeAll(async () => {
  society = await startTestSociety();
  member = new TesseraClient(society.url, await generateKey());
  await member.register('receipt-holder');
  answer = (await member.act('key_backup_register', {
    backup_pubkey: (await generateKey()).public_key,
  })) as Required<ActAnswer>;
  vkey = await member.logKey();
});
afterAll(async () => society.destroy());

function tampered(receipt: Receipt, change: (copy: Receipt) => void): Receipt {
  const copy = structuredClone(receipt);
  change(copy);
  return copy;
}

/** The base64 hash with its first byte flipped. */
function flipped(hash_base64: string): string {
  const bytes = fromBase64(hash_base64);
  bytes[0]! ^= 1;
  return toBase64(bytes);
}

describe('a receipt, checked offline', () => {
  it("is in every act's answer and verifies with nothing but the log key", async () => {
    expect(answer.receipt.leaf_index).toBe(answer.ledger.first_seq - 1);
    const check = await verifyReceipt(answer.receipt, vkey);
    expect(check).toMatchObject({ ok: true, leaf_index: answer.ledger.first_seq - 1 });
    if (!check.ok) return;
    expect(check.entry).toMatchObject({
      seq: answer.ledger.first_seq,
      event_type: 'key_backup_registered',
      actor: member.key!.agent_id,
    });
    // GET /log/receipt/<seq> gives one for the same entry, against the newest checkpoint.
    const fetched = await member.receipt(answer.ledger.first_seq);
    expect(fetched.entry).toBe(answer.receipt.entry);
    expect(await member.verifyReceipt(fetched, vkey)).toMatchObject({ ok: true });
  });

  it('fails, saying why, for a changed entry byte, proof hash, checkpoint size or signature', async () => {
    const receipt = answer.receipt;
    const cases: [string, Receipt, RegExp][] = [
      [
        'entry byte',
        tampered(receipt, (r) => {
          r.entry = r.entry.replace('"at":"2', '"at":"1');
        }),
        /inclusion proof does not lead from the entry's leaf hash to the checkpoint's root/,
      ],
      [
        'proof hash',
        tampered(receipt, (r) => {
          r.inclusion_proof[0] = flipped(r.inclusion_proof[0]!);
        }),
        /inclusion proof does not lead from the entry's leaf hash to the checkpoint's root/,
      ],
      [
        'checkpoint size',
        tampered(receipt, (r) => {
          const [origin, size, ...rest] = r.checkpoint.split('\n');
          r.checkpoint = [origin, String(Number(size) + 1), ...rest].join('\n');
        }),
        /checkpoint's signature does not verify against the log key/,
      ],
      [
        'signature',
        tampered(receipt, (r) => {
          const lines = r.checkpoint.split('\n');
          const signature_line = lines.findIndex((line) => line.startsWith('\u2014 '));
          const [dash, name, signature] = lines[signature_line]!.split(' ');
          // Past the four bytes of key id: the signature proper.
          const bytes = fromBase64(signature!);
          bytes[10]! ^= 1;
          lines[signature_line] = `${dash} ${name} ${toBase64(bytes)}`;
          r.checkpoint = lines.join('\n');
        }),
        /checkpoint's signature does not verify against the log key/,
      ],
      [
        'leaf index',
        tampered(receipt, (r) => {
          r.leaf_index -= 1;
        }),
        /inclusion proof/,
      ],
    ];
    expect(receipt.inclusion_proof.length).toBeGreaterThan(0);
    for (const [what, forged, reason] of cases) {
      const check = await verifyReceipt(forged, vkey);
      expect(check.ok, what).toBe(false);
      expect(check.ok ? '' : check.reason, what).toMatch(reason);
    }
    const other_key = formatVerifierKey(await generateSignerKey(vkey.split('+')[0]!, SIGNATURE_TYPE_ED25519));
    expect(await verifyReceipt(receipt, other_key)).toMatchObject({
      ok: false,
      reason: expect.stringMatching(/signature does not verify/),
    });
  });

  it('tessera-agent receipt saves one and verify-receipt checks it with no network; bad use exits 2', async () => {
    const saved = await cli(['receipt', String(answer.ledger.first_seq), society.url]);
    expect(saved.code, saved.stderr).toBe(0);
    const file = join(work, 'receipt.json');
    writeFileSync(file, saved.stdout);
    // The URL of a closed port: the check must not need the network.
    const checked = await cli(['verify-receipt', file, '--vkey', vkey, '--url', 'http://127.0.0.1:9']);
    expect(checked.code, checked.stderr).toBe(0);
    expect(JSON.parse(checked.stdout)).toMatchObject({ ok: true, seq: answer.ledger.first_seq });

    const forged_file = join(work, 'forged.json');
    const forged = JSON.parse(saved.stdout) as Receipt;
    forged.inclusion_proof[0] = flipped(forged.inclusion_proof[0]!);
    writeFileSync(forged_file, JSON.stringify(forged));
    const refused = await cli(['verify-receipt', forged_file, '--vkey', vkey]);
    expect(refused.code).toBe(1);
    expect(JSON.parse(refused.stdout)).toMatchObject({ ok: false, reason: expect.stringContaining('inclusion proof') });

    expect((await cli(['verify-receipt', file])).code).toBe(2);
    expect((await cli(['receipt', 'seven', society.url])).code).toBe(2);
  });
});

describe('the whole log, checked from outside', () => {
  let proxy: LogProxy;
  const state = join(work, 'log-state.json');
  beforeAll(async () => {
    proxy = await startLogProxy(society.url);
  });
  afterAll(async () => proxy.close());

  const remembered = () => JSON.parse(readFileSync(state, 'utf8')).logs[proxy.url].checkpoint;

  it('passes, pinning the key loudly on first use and remembering the checkpoint', async () => {
    const first = await cli(['verify', proxy.url, '--state', state, '--quiet']);
    expect(first.code, first.stderr).toBe(0);
    const report = JSON.parse(first.stdout);
    expect(report).toMatchObject({ ok: true, chain_checked: true, checkpoint: { origin: vkey.split('+')[0] } });
    expect(report.entries_checked).toBe(report.checkpoint.size);
    expect(first.stderr).toContain(`PINNED the log key ${vkey}`);
    expect(JSON.parse(readFileSync(state, 'utf8')).logs[proxy.url]).toEqual({ vkey, checkpoint: report.checkpoint });

    // The log grows; the next run checks the new checkpoint extends the one remembered.
    await member.act('key_backup_register', { backup_pubkey: (await generateKey()).public_key });
    const second = await cli(['verify', proxy.url, '--state', state, '--quiet']);
    expect(second.code, second.stderr).toBe(0);
    const grown = JSON.parse(second.stdout);
    expect(grown).toMatchObject({ ok: true, previous: report.checkpoint });
    expect(grown.checkpoint.size).toBeGreaterThan(report.checkpoint.size);
    expect(second.stderr).not.toContain('PINNED');
    expect(remembered()).toEqual(grown.checkpoint);
  });

  it('catches a tile or an entry the checkpoint does not sign', async () => {
    const { size } = remembered();
    const entries = await logEntries(society.url, size);
    const edited = entries.map((entry, i) => (i === 2 ? editedEntry(entry) : entry));
    const tree = await forgeLog(edited, {});
    // An entry bundle edited alone: its leaf no longer matches the level-0 tile.
    const bundle_only = [...tree].filter(([path]) => path.startsWith('tile/entries/'));
    for (const [path, forged] of bundle_only) proxy.forgery.set(path, forged);
    const lone = await verifyLog(proxy.url, { vkey });
    expect(lone).toMatchObject({ ok: false, failed: { check: 'tiles', seq: 3 } });
    // Bundle and tile edited together: the leaves fold to another root than the signed one.
    for (const [path, forged] of tree) proxy.forgery.set(path, forged);
    expect(await verifyLog(proxy.url, { vkey })).toMatchObject({ ok: false, failed: { check: 'root' } });
    // The command line also runs the chain recipe over the same bytes, which sees the entry's own hash broken first.
    const both = await cli(['verify', proxy.url, '--state', state, '--quiet']);
    expect(both.code).toBe(1);
    expect(JSON.parse(both.stdout)).toMatchObject({ ok: false, failed: { check: 'chain', seq: 3 } });
    proxy.forgery.clear();
  });

  it('catches a history that differs from the checkpoint remembered, and keeps remembering the good one', async () => {
    const good = remembered();
    await member.act('key_backup_register', { backup_pubkey: (await generateKey()).public_key });
    const size = (await verifyLog(society.url, { vkey })).checkpoint!.size;
    expect(size).toBeGreaterThan(good.size);
    // The operator's other view: entry 3 rewritten, tiles to match, a checkpoint signed with the log's own key.
    const entries = await logEntries(society.url, size);
    const fork = await forgeLog(
      entries.map((entry, i) => (i === 2 ? editedEntry(entry) : entry)),
      { sign_with_data_dir: society.data_dir },
    );
    for (const [path, forged] of fork) proxy.forgery.set(path, forged);
    // A reader with no memory of the log cannot tell: the view is whole and signed.
    expect(await verifyLog(proxy.url, { vkey })).toMatchObject({ ok: true, checkpoint: { size } });
    // One that remembers a checkpoint asks for the consistency proof, which no honest log can give for a fork.
    const split = await cli(['verify', proxy.url, '--state', state, '--quiet']);
    expect(split.code).toBe(1);
    expect(JSON.parse(split.stdout)).toMatchObject({
      ok: false,
      previous: good,
      failed: { check: 'consistency', reason: expect.stringContaining('SPLIT VIEW OR REWRITTEN HISTORY') },
    });
    expect(split.stderr).toContain('FAILED (consistency)');
    expect(remembered()).toEqual(good);

    // A rolled-back view: a checkpoint smaller than the one remembered, signed too.
    proxy.forgery.clear();
    for (const [path, forged] of await forgeLog(entries.slice(0, good.size - 1), {
      sign_with_data_dir: society.data_dir,
    }))
      proxy.forgery.set(path, forged);
    const rolled_back = await cli(['verify', proxy.url, '--state', state, '--quiet']);
    expect(rolled_back.code).toBe(1);
    expect(JSON.parse(rolled_back.stdout).failed).toMatchObject({
      check: 'consistency',
      reason: expect.stringContaining(`fewer than the checkpoint remembered (size ${good.size}`),
    });
    expect(remembered()).toEqual(good);
    proxy.forgery.clear();

    // The honest log still extends the remembered checkpoint.
    expect((await cli(['verify', proxy.url, '--state', state, '--quiet'])).code).toBe(0);
  });

  it('refuses a log key other than the one pinned', async () => {
    const impostor = await generateSignerKey(vkey.split('+')[0]!, SIGNATURE_TYPE_ED25519);
    proxy.forgery.set('key', { body: `${formatVerifierKey(impostor)}\n`, type: 'text/plain' });
    const changed = await cli(['verify', proxy.url, '--state', state, '--quiet']);
    proxy.forgery.clear();
    expect(changed.code).toBe(1);
    expect(JSON.parse(changed.stdout).failed).toMatchObject({
      check: 'key',
      reason: expect.stringContaining("THE LOG'S KEY CHANGED"),
    });
    const given = await cli(['verify', proxy.url, '--state', state, '--vkey', formatVerifierKey(impostor), '--quiet']);
    expect(given.code).toBe(1);
    expect(JSON.parse(given.stdout).failed.reason).toContain('is not the key pinned');
  });
});

describe('the README: verify your own act in three commands', () => {
  it('runs the commands exactly as written', async () => {
    const readme = readFileSync('README.md', 'utf8');
    const section = readme.slice(readme.indexOf('### Verify your own act in three commands'));
    const block = /```sh\n([\s\S]*?)```/.exec(section)![1]!;
    const commands = block.split('\n').filter((line) => line.startsWith('tessera-agent') || line.startsWith('seq='));
    expect(commands).toHaveLength(3);
    // A folder where the agent's key is, and tessera-agent on the PATH as an installed package puts it.
    const home = join(work, 'agent');
    const bin = join(home, 'bin');
    mkdirSync(bin, { recursive: true });
    writeFileSync(join(bin, 'tessera-agent'), `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n`);
    chmodSync(join(bin, 'tessera-agent'), 0o755);
    const key = await generateKey();
    writeFileSync(join(home, 'agent.key.json'), JSON.stringify(key), { mode: 0o600 });
    await new TesseraClient(society.url, key).register('readme-reader');
    const { stdout } = await exec('bash', ['-euo', 'pipefail', '-c', commands.join('\n')], {
      cwd: home,
      env: { ...process.env, PATH: `${bin}:${process.env.PATH}`, TESSERA_URL: society.url },
      timeout: 120_000,
    });
    expect(JSON.parse(stdout)).toMatchObject({ ok: true, actor: key.agent_id });
  });
});

describe('a log of several tiles', () => {
  /**
   * A log served from memory, as tlog-tiles lays it out: the tree holds `tree_size`
   * entries while its newest checkpoint may cover fewer, and a server may drop a partial
   * tile once its full tile exists.
   */
  async function memoryLog(entry_count: number) {
    const key = await generateSignerKey('memory.test/log', SIGNATURE_TYPE_ED25519);
    const entries = Array.from({ length: entry_count }, (_, i) => new TextEncoder().encode(`{"n":${i}}`));
    const leaves = entries.map((entry) => nobleHasher.leaf(entry));
    const subtrees = new Map<string, Hash>();
    const read = (level: number, n: number): Hash => {
      if (level === 0) return leaves[n]!;
      const id = `${level}/${n}`;
      if (!subtrees.has(id)) subtrees.set(id, nobleHasher.node(read(level - 1, 2 * n), read(level - 1, 2 * n + 1)));
      return subtrees.get(id)!;
    };
    const log = {
      tree_size: entry_count,
      checkpoint_size: entry_count,
      drop_partials: false,
      requests: [] as string[],
    };
    const answer = (body: string | Uint8Array<ArrayBuffer> | null, status = 200) => new Response(body, { status });
    const fetcher = (async (url: string) => {
      const path = url.replace(/^memory:\/\/log\/log\//, '');
      log.requests.push(path);
      if (path === 'checkpoint') {
        const text = formatCheckpoint({
          origin: key.name,
          size: log.checkpoint_size,
          root_hash: treeHash(nobleHasher, log.checkpoint_size, read),
          extensions: [],
        });
        return answer(await signNote(text, [noteSigner(key)]));
      }
      const proof = /^proof\/consistency\?old=(\d+)&new=(\d+)$/.exec(path);
      if (proof) {
        const hashes = consistencyProof(nobleHasher, Number(proof[1]), Number(proof[2]), read);
        return answer(JSON.stringify({ consistency_proof: hashes.map(toBase64) }));
      }
      const tile = parseTilePath(path);
      if (!tile || !tileExists(tile, log.tree_size)) return answer(null, 404);
      if (log.drop_partials && tile.width < TILE_WIDTH && tileExists({ ...tile, width: TILE_WIDTH }, log.tree_size))
        return answer(null, 404);
      const first = tile.index * TILE_WIDTH;
      if (tile.level === ENTRIES_LEVEL)
        return answer(new Uint8Array(encodeBundle(entries.slice(first, first + tile.width))));
      const bytes = new Uint8Array(32 * tile.width);
      for (let i = 0; i < tile.width; i++) bytes.set(read(0, first + i), 32 * i);
      return answer(bytes);
    }) as typeof fetch;
    return { log, fetcher, vkey: formatVerifierKey(key) };
  }

  it('recomputes the root across full and partial tiles, extends the checkpoint remembered, and takes a dropped partial tile from its full one', async () => {
    const { log, fetcher, vkey } = await memoryLog(800);
    log.checkpoint_size = 300;
    const progress: number[] = [];
    const first = await verifyLog('memory://log', {
      vkey,
      fetcher,
      on_progress: (checked, size) => progress.push(checked / size),
    });
    expect(first).toMatchObject({ ok: true, entries_checked: 300, checkpoint: { size: 300 } });
    expect(progress).toEqual([256 / 300, 1]);
    expect(log.requests).toEqual(expect.arrayContaining(['tile/entries/000', 'tile/0/000', 'tile/entries/001.p/44']));

    log.checkpoint_size = 600;
    log.drop_partials = true;
    log.requests.length = 0;
    const second = await verifyLog('memory://log', { vkey, fetcher, remembered: first.checkpoint! });
    expect(second).toMatchObject({ ok: true, entries_checked: 600, previous: first.checkpoint });
    expect(log.requests).toEqual(
      expect.arrayContaining(['proof/consistency?old=300&new=600', 'tile/entries/002.p/88', 'tile/entries/002']),
    );

    // Remembering a root the log never had: the same proof no longer checks.
    const wrong_root = { ...first.checkpoint!, root_hash: second.checkpoint!.root_hash };
    expect(await verifyLog('memory://log', { vkey, fetcher, remembered: wrong_root })).toMatchObject({
      ok: false,
      failed: { check: 'consistency' },
    });
    // The same size with another root needs no proof to be a fork.
    const same_size = { ...second.checkpoint!, root_hash: first.checkpoint!.root_hash };
    log.requests.length = 0;
    expect(await verifyLog('memory://log', { vkey, fetcher, remembered: same_size })).toMatchObject({
      ok: false,
      failed: { check: 'consistency', reason: expect.stringContaining('SPLIT VIEW') },
    });
    expect(log.requests).toEqual(['checkpoint']);
  });
});

describe('the verifying code', () => {
  it('imports no Node-only module: it runs in a browser or any JavaScript runtime', () => {
    const seen = new Set<string>();
    const packages = new Set<string>();
    const visit = (file: string) => {
      if (seen.has(file)) return;
      seen.add(file);
      for (const [, specifier] of readFileSync(file, 'utf8').matchAll(/^(?:import|export)[^'"]*?from '([^']+)'/gm)) {
        if (specifier!.startsWith('.')) visit(resolve(dirname(file), specifier!.replace(/\.js$/, '.ts')));
        else packages.add(specifier!);
      }
    };
    visit(resolve('client/tlog/verify_log.ts'));
    visit(resolve('client/tlog/receipt.ts'));
    expect(seen.size).toBeGreaterThan(5);
    expect([...packages].filter((name) => !/^(@noble\/|canonicalize$)/.test(name))).toEqual([]);
  });
});
