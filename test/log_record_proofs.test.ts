import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { RootDatabase } from 'lmdb';
import { canonicalBody } from '../client/protocol.js';
import { Engine, findAct, LmdbStore, MemoryStore, recoverState, stateHash, type TickRecord } from '../engine/index.js';
import type { PomAnswer } from '../engine/pom/gate.js';
import type { Proof } from '../engine/ledger.js';
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
  const log = (store.root as RootDatabase).openDB<string, number>({
    name: 'log',
    keyEncoding: 'uint32',
    encoding: 'string',
  });
  return Array.from(log.getRange(), ({ value }) => value);
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

describe('the log table on disk', () => {
  it("keeps a message's proof once, on its entry: the record names the entry instead", async () => {
    const store = lmdbStore();
    const { send, filing } = await signedHistory(store);
    const raw = rawLog(store).join('\n');
    expect(raw).not.toContain(send.proof.signature);
    expect(raw).toMatch(/"proof_entry_seq":\d+/);
    // The refused filing's body is on no entry, so the record is where replay finds it.
    expect(raw).toContain(filing.proof.signature);
    const entry_seq = Number(/"proof_entry_seq":(\d+)/.exec(raw)![1]);
    expect(JSON.parse(store.ledgerJson(entry_seq)!).proof).toEqual(send.proof);
  });

  it('reads records written with the proof inline, as stores before this form hold them', async () => {
    const dir = tempDir();
    const store = lmdbStore(dir);
    const { under, send } = await signedHistory(store);
    const log = store.root.openDB<string, number>({ name: 'log', keyEncoding: 'uint32', encoding: 'string' });
    // Rewrite every record the old way: the whole action, proof and all.
    for (const record of [...store.ticksAfter(0)]) await log.put(record.tick, JSON.stringify(record));
    expect(rawLog(store).join('\n')).toContain(send.proof.signature);
    expect(loggedWith([...store.ticksAfter(0)], send.proof.nonce)).toEqual(send);
    expect(stateHash(recoverState(store, { use_snapshot: false }))).toBe(stateHash(under.engine.state));
  });

  it('refuses a record that points at an entry without that proof: a damaged store is not replayed as if whole', async () => {
    const store = lmdbStore();
    const { ada, send } = await signedHistory(store);
    const log = store.root.openDB<string, number>({ name: 'log', keyEncoding: 'uint32', encoding: 'string' });
    const pointing = Array.from(log.getRange()).find(({ value }) => value.includes('proof_entry_seq'))!;
    // Point the message's record at its actor's registration, an entry that carries no signed body here.
    const registration_seq = [...store.ledgerEntries(1)].find((entry) =>
      entry.json.includes('"agent_registered"'),
    )!.seq;
    await log.put(
      pointing.key,
      pointing.value.replace(/"proof_entry_seq":\d+/, `"proof_entry_seq":${registration_seq}`),
    );
    expect(() => [...store.ticksAfter(0)]).toThrow(RecordProofError);
    expect(() => recoverState(store, { use_snapshot: false })).toThrow(/takes an action's proof from ledger entry/);
    // And at an entry of another member's act: the actor must match too.
    await log.put(pointing.key, pointing.value.replace(/"actor":"[^"]+"/, '"actor":"ag_0000000000000000"'));
    expect(() => [...store.ticksAfter(0)]).toThrow(new RegExp(`whose actor is ${ada.agent_id}`));
    expect(send.actor).toBe(ada.agent_id);
  });
});
