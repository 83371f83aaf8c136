import { readFileSync, statSync } from 'node:fs';
import { join as joinPath } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TesseraClient } from '../client/sdk.js';
import { generateKey } from '../client/keys.js';
import { fromBase64 } from '../client/tlog/base64.js';
import { parseCheckpoint } from '../client/tlog/checkpoint.js';
import { nobleHasher } from '../client/tlog/hasher.js';
import { verifyInclusion } from '../client/tlog/merkle.js';
import { openNote } from '../client/tlog/note.js';
import { noteVerifier, parseVerifierKey } from '../client/tlog/note_keys.js';
import { startSociety } from '../api/server.js';
import { startTestSociety, testConfig, type TestSociety } from './helpers/society.js';
import { request } from './helpers/signed.js';

interface Receipt {
  leaf_index: number;
  entry: string;
  checkpoint: string;
  inclusion_proof: string[];
}

let society: TestSociety;
let vkey: string;
beforeAll(async () => {
  society = await startTestSociety({ config: { log_origin: 'receipts.test/tessera' } });
  vkey = (await request(society.url, '/log/key')).body.trim();
});
afterAll(async () => society.destroy());
afterEach(() => expect(society.bugs).toEqual([]));

/** A receipt checked the way an outsider would, with the pure-JS verifiers and nothing from the server but the vkey. */
async function checkReceipt(receipt: Receipt, seq: number): Promise<void> {
  const opened = await openNote(receipt.checkpoint, [noteVerifier(parseVerifierKey(vkey))]);
  const checkpoint = parseCheckpoint(opened.text);
  expect(checkpoint.origin).toBe('receipts.test/tessera');
  expect(receipt.leaf_index).toBe(seq - 1);
  expect(JSON.parse(receipt.entry).seq).toBe(seq);
  const leaf = nobleHasher.leaf(new TextEncoder().encode(receipt.entry));
  const proof = receipt.inclusion_proof.map(fromBase64);
  expect(verifyInclusion(nobleHasher, receipt.leaf_index, checkpoint.size, leaf, proof, checkpoint.root_hash)).toBe(
    true,
  );
}

describe('receipts', () => {
  it("come with every signed act's answer, and check offline against the log's key", async () => {
    const key = await generateKey();
    const client = new TesseraClient(society.url, key);
    const registered = (await client.register('ada')) as unknown as { ledger: { first_seq: number }; receipt: Receipt };
    await checkReceipt(registered.receipt, registered.ledger.first_seq);
    expect(registered.receipt.entry).toBe(society.store.ledgerJson(registered.ledger.first_seq));
    const posted = (await client.act('bulletin_post', { title: 'hello', body: 'a receipt for this' })) as unknown as {
      ledger: { first_seq: number };
      receipt: Receipt;
    };
    await checkReceipt(posted.receipt, posted.ledger.first_seq);
  });

  it('are served for any entry at /log/receipt/{seq}, and refused beyond the head', async () => {
    const head = society.store.ledgerHead().seq;
    for (const seq of [1, Math.ceil(head / 2), head]) {
      const answer = await request(society.url, `/log/receipt/${seq}`);
      expect(answer.status).toBe(200);
      await checkReceipt(answer.body as Receipt, seq);
    }
    const beyond = await request(society.url, `/log/receipt/${head + 1}`);
    expect([beyond.status, beyond.body.error]).toEqual([404, 'UNKNOWN_ENTRY']);
    const malformed = await request(society.url, '/log/receipt/abc');
    expect(malformed.status).toBe(422);
    expect(malformed.body.detail[0].loc).toEqual(['path', 'seq']);
  });

  it('take a seq of plain digits only, as every other route does', async () => {
    for (const text of ['0x1', '0b1', '1e0', '+1', '1.', '%201', '1.0', '-1']) {
      const answer = await request(society.url, `/log/receipt/${text}`);
      expect([text, answer.status, answer.body.detail?.[0]?.loc]).toEqual([text, 422, ['path', 'seq']]);
    }
  });
});

describe('the checkpoint', () => {
  it('is a signed note of the origin, the durable size and its root, and the status read names the log', async () => {
    const answer = await request(society.url, '/log/checkpoint');
    expect(answer.status).toBe(200);
    const opened = await openNote(answer.body, [noteVerifier(parseVerifierKey(vkey))]);
    const checkpoint = parseCheckpoint(opened.text);
    expect(checkpoint.size).toBe(society.store.ledgerHead().seq);
    expect(Buffer.from(checkpoint.root_hash)).toEqual(Buffer.from(society.engine.log_tree.root(checkpoint.size)));
    const status = (await request(society.url, '/api/v1/status')).body;
    expect(status.transparency_log).toEqual({
      origin: 'receipts.test/tessera',
      verifier_key: vkey,
      checkpoint: { size: checkpoint.size, root_hash: Buffer.from(checkpoint.root_hash).toString('base64') },
    });
  });

  it('is signed by a key kept in the data folder, private to its owner, and survives a restart', async () => {
    const file = joinPath(society.data_dir, 'log.key');
    expect(statSync(file).mode & 0o077).toBe(0);
    expect(readFileSync(file, 'utf8')).toMatch(/^PRIVATE\+KEY\+receipts\.test\/tessera\+[0-9a-f]{8}\+/);
    expect(vkey).toMatch(/^receipts\.test\/tessera\+[0-9a-f]{8}\+/);
  });
});

describe('the log origin', () => {
  it('cannot be changed once the log key exists', async () => {
    const data_dir = society.data_dir;
    const config = testConfig(data_dir, { log_origin: 'another.origin/tessera' });
    await society.close();
    await expect(startSociety(config, { log: () => undefined })).rejects.toThrow(/origin cannot change/);
    const restarted = await startSociety(testConfig(data_dir), { log: () => undefined });
    try {
      expect((await request(restarted.url, '/log/key')).body.trim()).toBe(vkey);
    } finally {
      await restarted.close();
    }
    society.close = async () => undefined;
  });
});
