import { copyFileSync, existsSync, readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateKey } from '../client/keys.js';
import { TesseraClient } from '../client/sdk.js';
import { parseCheckpoint } from '../client/tlog/checkpoint.js';
import { SIGNATURE_TYPE_COSIGNATURE_V1 } from '../client/tlog/cosignature.js';
import { openNote } from '../client/tlog/note.js';
import {
  formatVerifierKey,
  generateSignerKey,
  noteSigner,
  noteVerifier,
  parseVerifierKey,
} from '../client/tlog/note_keys.js';
import { witnessServer } from '../client/witness/server.js';
import { WitnessStateFile } from '../client/witness/state_file.js';
import { Witness } from '../client/witness/witness.js';
import { startSociety, type RunningSociety } from '../api/server.js';
import { tempDir, testConfig } from './helpers/society.js';
import { request } from './helpers/signed.js';

const ORIGIN = 'witnessed.test/tessera';
const cleanup: (() => Promise<void> | void)[] = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

async function start(
  data_dir: string,
  witnesses: { url: string; vkey: string }[] = [],
): Promise<RunningSociety & { logs: string[] }> {
  const logs: string[] = [];
  const society = await startSociety(testConfig(data_dir, { log_origin: ORIGIN, witnesses }), {
    log: (line) => logs.push(JSON.stringify(line)),
  });
  return Object.assign(society, { logs });
}

async function registerSome(url: string, count: number): Promise<void> {
  for (let i = 0; i < count; i++)
    await new TesseraClient(url, await generateKey()).register(`member-${Math.random().toString(36).slice(2, 10)}`);
}

/** Polls the served checkpoint until `done` holds (a witness round runs once a second). */
async function checkpointWhen(url: string, done: (note: string) => boolean): Promise<string> {
  for (let attempt = 0; attempt < 100; attempt++) {
    const note = (await request(url, '/log/checkpoint')).body as string;
    if (done(note)) return note;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('the served checkpoint never reached the expected state');
}

describe('witnesses of the log', () => {
  it('cosign each new checkpoint, which is then served with their lines; a forked log with the same key is refused', async () => {
    // A society, and the log key a witness is told to follow.
    const data_dir = tempDir();
    let society = await start(data_dir);
    await registerSome(society.url, 3);
    const log_vkey = ((await request(society.url, '/log/key')).body as string).trim();
    await society.close();

    // A witness any member could run.
    const witness_key = await generateSignerKey('witness.test/alice', SIGNATURE_TYPE_COSIGNATURE_V1);
    const witness_vkey = formatVerifierKey(witness_key);
    const refusals: string[] = [];
    const witness = new Witness(
      noteSigner(witness_key),
      [parseVerifierKey(log_vkey)],
      await WitnessStateFile.load(join(tempDir(), 'witness.state.json')),
      (refusal) => refusals.push(`${refusal.status} ${refusal.reason}`),
    );
    const server = witnessServer(witness);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    cleanup.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const witness_url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

    // The society restarted with the witness configured: its checkpoints come back cosigned.
    society = await start(data_dir, [{ url: witness_url, vkey: witness_vkey }]);
    cleanup.push(() => society.close());
    await registerSome(society.url, 2);
    const size = society.store.ledgerHead().seq;
    const verifiers = [noteVerifier(parseVerifierKey(log_vkey)), noteVerifier(parseVerifierKey(witness_vkey))];
    const cosigned = await checkpointWhen(society.url, (note) => note.includes('— witness.test/alice '));
    const opened = await openNote(cosigned, verifiers);
    expect(opened.verified.map((signature) => signature.name).sort()).toEqual([ORIGIN, 'witness.test/alice'].sort());
    expect(parseCheckpoint(opened.text).size).toBe(size);
    expect(readFileSync(join(data_dir, 'log.cosigned'), 'utf8')).toBe(cosigned);

    // The log grows; the next round is cosigned too, through a consistency proof from the witnessed size.
    await registerSome(society.url, 2);
    const grown = society.store.ledgerHead().seq;
    const next = await checkpointWhen(
      society.url,
      (note) => note.includes(`\n${grown}\n`) && note.includes('witness.test/alice'),
    );
    expect((await openNote(next, verifiers)).verified).toHaveLength(2);
    expect(refusals).toEqual([]);

    // A second history under the same log key (the operator showing another ledger): the witness refuses it.
    const fork_dir = tempDir();
    let fork = await start(fork_dir);
    await registerSome(fork.url, 8);
    await fork.close();
    copyFileSync(join(data_dir, 'log.key'), join(fork_dir, 'log.key'));
    fork = await start(fork_dir, [{ url: witness_url, vkey: witness_vkey }]);
    cleanup.push(() => fork.close());
    await registerSome(fork.url, 1);
    // The witness refuses, and the fork's log reports it once its round has settled.
    const reported = () =>
      fork.logs.some((line) => line.includes('"witness":"witness.test/alice"') && line.includes('refused'));
    for (let attempt = 0; attempt < 100 && !reported(); attempt++)
      await new Promise((resolve) => setTimeout(resolve, 100));
    expect(refusals.length).toBeGreaterThan(0);
    expect(reported()).toBe(true);
    const fork_note = (await request(fork.url, '/log/checkpoint')).body as string;
    expect(fork_note).not.toContain('witness.test/alice');
    expect(existsSync(join(fork_dir, 'log.cosigned'))).toBe(false);
  });
});
