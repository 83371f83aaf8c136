import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { canonicalBody } from '../client/protocol.js';
import { Engine, findAct, LmdbStore, MemoryStore, recoverState, stateHash, type TickRecord } from '../engine/index.js';
import type { PomAnswer } from '../engine/pom/gate.js';
import { chainEntry, type Proof } from '../engine/ledger.js';
import { RecordProofError } from '../engine/store/record_bytes.js';
import * as harness from './helpers/memory_engine.js';
import { tempDir } from './helpers/society.js';

/**
 * The log table keeps a signed act's proof once: on its ledger entry, which the
 * action's record names (engine/store/record_bytes.ts). What is read back, replayed
 * and handed to followers is the action as it was logged.
 */

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

function lmdbStore(dir = tempDir()): LmdbStore {
  const store = new LmdbStore(dir);
  cleanup.push(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return store;
}

/** The log table's raw values, as the store wrote them. */
function rawLog(store: LmdbStore): string[] {
  return Array.from(lmdbTable(store, 'log').getRange(), ({ value }) => value);
}

let nonces = 0;

/** A submission as the act route makes one: the proof is synthetic (the engine does not check signatures; HTTP does). */
function signed(act: string, actor: string, raw_payload: Record<string, unknown>, pom?: PomAnswer) {
  // Defaults filled by the act's schema, as the route does before it submits.
  const payload = findAct(act)!.payload.parse(raw_payload) as Record<string, unknown>;
  const proof: Proof = {
    method: 'POST',
    path: '/api/v1/act',
    nonce: `nonce-${String(++nonces).padStart(16, '0')}`,
    body: canonicalBody({ act, ...(pom ?? {}), payload }),
    signature: `sig${nonces}`.padEnd(86, 'A'),
  };
  return { act, actor, payload, proof, ...(pom ? { pom } : {}) };
}

async function challenge(engine: Engine, actor: string, intent: string) {
  const asked = harness.succeeded(await harness.submitAct(engine, 'pom_challenge', actor, { intent }));
  const challenge_id = asked.challenge_id as string;
  return { challenge_id, puzzle_solution: engine.state.pom.challenges[challenge_id]!.answer };
}

/** A society with a message sent, a vote cast and a Bedrock filing refused, all signed, on the given store. */
async function signedHistory(store: LmdbStore | MemoryStore) {
  const under = await harness.memoryEngine({ store });
  const { engine } = under;
  const ada = await harness.registered(engine, 'ada');
  const send = signed(
    'aether_send',
    ada.agent_id,
    { body: 'hello "world"', scope: 'auto', route: 'global' },
    await challenge(engine, ada.agent_id, 'aether_send'),
  );
  harness.succeeded(await engine.submit(send));
  const filing_payload = {
    title: 'Quiet',
    body: '',
    changes: [{ op: 'amend_axiom', article_id: 'A4', text: 'the secret text' }],
  };
  const filing = signed(
    'motion_propose',
    ada.agent_id,
    filing_payload,
    await challenge(engine, ada.agent_id, 'motion_propose'),
  );
  const refused = await engine.submit(filing);
  expect(refused.ok ? 'ok' : refused.code).toBe('BEDROCK_PROTECTED');
  await engine.drain();
  return { under, ada, send, filing };
}

function loggedWith(records: TickRecord[], nonce: string) {
  return records.flatMap((record) => record.actions).find((action) => action.proof?.nonce === nonce);
}

describe.each([
  { name: 'LmdbStore', open: () => lmdbStore() },
  { name: 'MemoryStore', open: () => new MemoryStore() },
])('the log record of a signed act on $name', ({ open }) => {
  it('reads back with its proof as it was logged, taken from the entry that carries it', async () => {
    const store = open();
    const { send, filing } = await signedHistory(store);
    const records = [...store.ticksAfter(0)];
    expect(loggedWith(records, send.proof.nonce)).toEqual(send);
    // A refused Bedrock filing's entry shows only the body's digest: its record keeps the whole proof.
    expect(loggedWith(records, filing.proof.nonce)).toEqual(filing);
  });

  it('replays to the same state and ledger as the engine that wrote it', async () => {
    const store = open();
    const { under } = await signedHistory(store);
    // recoverState regenerates every entry from the records and compares it with the stored one.
    const replayed = recoverState(store, { use_snapshot: false });
    expect(stateHash(replayed)).toBe(stateHash(under.engine.state));
  });
});

const CARRIER = /"proof_in_entry":\{"seq":(\d+),"hash":"([0-9a-f]{64})"\}/;

function lmdbTable(store: LmdbStore, name: 'log' | 'ledger') {
  return store.root.openDB<string, number>({ name, keyEncoding: 'uint32', encoding: 'string' });
}

describe('the log table on disk', () => {
  it("keeps a message's proof once, on its entry: the record names the entry, by seq and hash, instead", async () => {
    const store = lmdbStore();
    const { send, filing } = await signedHistory(store);
    const raw = rawLog(store).join('\n');
    expect(raw).not.toContain(send.proof.signature);
    // The refused filing's body is on no entry, so the record is where replay finds it.
    expect(raw).toContain(filing.proof.signature);
    const [, seq, hash] = CARRIER.exec(raw)!;
    const entry = JSON.parse(store.ledgerJson(Number(seq))!);
    expect([entry.proof, entry.hash]).toEqual([send.proof, hash]);
  });

  it('reads records written with the proof inline, as stores before this form hold them', async () => {
    const store = lmdbStore();
    const { under, send } = await signedHistory(store);
    // Rewrite every record the old way: the whole action, proof and all.
    for (const record of [...store.ticksAfter(0)])
      await lmdbTable(store, 'log').put(record.tick, JSON.stringify(record));
    expect(rawLog(store).join('\n')).toContain(send.proof.signature);
    expect(loggedWith([...store.ticksAfter(0)], send.proof.nonce)).toEqual(send);
    expect(stateHash(recoverState(store, { use_snapshot: false }))).toBe(stateHash(under.engine.state));
  });

  it("finds at start-up a message's entry edited with its hash recomputed, as it did when the record held the proof", async () => {
    const store = lmdbStore();
    const under = await harness.memoryEngine({ store });
    const ada = await harness.registered(under.engine, 'ada');
    const pom = await challenge(under.engine, ada.agent_id, 'aether_send');
    harness.succeeded(await under.engine.submit(signed('aether_send', ada.agent_id, { body: 'pay 5 to ada' }, pom)));
    await under.engine.drain();
    const head = store.ledgerHead();
    // The attacker rewrites the signed body on the newest entry (the message) and its hash, so the chain still holds.
    const { hash: _old, ...unhashed } = JSON.parse(store.ledgerJson(head.seq)!);
    unhashed.proof.body = unhashed.proof.body.replace('pay 5', 'pay 500');
    const forged = chainEntry(
      { seq: head.seq - 1, hash: unhashed.prev_hash },
      Date.parse(unhashed.at),
      unhashed,
      unhashed.proof,
    );
    await lmdbTable(store, 'ledger').put(head.seq, forged.json);
    expect(() => recoverState(store)).toThrow(
      expect.objectContaining({ seq: head.seq, message: expect.stringContaining(`written with hash ${head.hash}`) }),
    );
  });

  it('refuses a record that names an entry without that proof: a damaged store is not replayed as if whole', async () => {
    const store = lmdbStore();
    const { ada } = await signedHistory(store);
    const log = lmdbTable(store, 'log');
    const pointing = Array.from(log.getRange()).find(({ value }) => CARRIER.test(value))!;
    const repoint = (seq: number, hash: string) =>
      log.put(pointing.key, pointing.value.replace(CARRIER, `"proof_in_entry":{"seq":${seq},"hash":"${hash}"}`));
    // Its actor's registration, named with its own hash: an entry that carries no signed body here.
    const registration = [...store.ledgerEntries(1)].find((entry) => entry.json.includes('"agent_registered"'))!;
    await repoint(registration.seq, store.ledgerHash(registration.seq)!);
    expect(() => [...store.ticksAfter(0)]).toThrow(RecordProofError);
    expect(() => recoverState(store, { use_snapshot: false })).toThrow(
      expect.objectContaining({ seq: registration.seq, message: expect.stringContaining('carries no signed body') }),
    );
    // An entry whose data holds an object under a "proof" key, with no proof of its own: the
    // proof is read from the entry's text, and only the entry's own last key before seq counts.
    const { hash: _hash, ...unhashed } = JSON.parse(store.ledgerJson(registration.seq)!);
    const lookalike = chainEntry({ seq: registration.seq - 1, hash: unhashed.prev_hash }, Date.parse(unhashed.at), {
      ...unhashed,
      data: { ...unhashed.data, proof: { body: '{}', method: 'POST', nonce: 'n', path: '/p', signature: 's' } },
    });
    await lmdbTable(store, 'ledger').put(registration.seq, lookalike.json);
    await repoint(registration.seq, lookalike.hash);
    expect(() => [...store.ticksAfter(0)]).toThrow(/carries no signed body/);
    // An entry the store does not hold.
    await repoint(9_999, '0'.repeat(64));
    expect(() => [...store.ticksAfter(0)]).toThrow(/which the store does not hold/);
    // The right entry, but the record says another member acted.
    await log.put(pointing.key, pointing.value.replace(/"actor":"[^"]+"/, '"actor":"ag_0000000000000000"'));
    expect(() => [...store.ticksAfter(0)]).toThrow(
      new RegExp(`whose actor is ${ada.agent_id}, not ag_0000000000000000`),
    );
  });
});
