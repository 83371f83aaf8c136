import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BareLedger } from './bare_ledger.js';
import { Engine, type Submission } from '../engine/engine.js';
import { chainEntry } from '../engine/ledger.js';
import { LmdbStore } from '../engine/store/lmdb_store.js';
import { opsPerSecond } from './measure.js';
import { freshPubkey, registerMembers } from './members.js';

// One full tick (actions_per_tick_max) per call, so both sides commit one transaction per call.
const batch_size = 1024;
const agents_count = 1000;

/**
 * Durable ledger appends through the whole engine (apply, JCS, SHA-256, log record,
 * spent nonces, one LMDB commit per tick) beside the bare limit: SHA-256 of the
 * same entry bytes and one lmdb put each, committed the same way, no engine.
 */
export async function benchLedgerAppend(): Promise<{ engine: number; bare: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-bench-'));
  let now = Date.parse('2026-11-21T10:00:00Z');
  const store = new LmdbStore(join(dir, 'engine'));
  const engine = await Engine.open(store, { founder_pubkey: freshPubkey() }, { clock: () => (now += 1) });
  const actors = await registerMembers(engine, agents_count, 'bench');

  const proof = {
    method: 'POST',
    path: '/api/v1/keys/backup',
    nonce: randomBytes(18).toString('base64url'),
    body: '',
    signature: randomBytes(64).toString('base64url'),
  };
  // Each member swaps between two backup keys of its own: the row measures the append, not the judging of a
  // new key (measured on its own row), which a fresh key in every act would add to it.
  const backup_keys = actors.map(() => [freshPubkey(), freshPubkey()] as const);
  const swaps = actors.map(() => 0);
  let batch: Submission[] = [];
  const prepareEngineBatch = () => {
    batch = Array.from({ length: batch_size }, (_, index) => {
      const member = index % actors.length;
      const backup_pubkey = backup_keys[member]![swaps[member]!++ % 2]!;
      return {
        act: 'key_backup_register',
        actor: actors[index % actors.length]!,
        payload: { backup_pubkey },
        proof: { ...proof, nonce: randomBytes(18).toString('base64url'), body: `{"backup_pubkey":"${backup_pubkey}"}` },
        consumed_nonce: { nonce: randomBytes(18).toString('base64url'), expires_at_ms: now + 300_000 },
      };
    });
  };

  // The bare side writes the same kind of entries, pre-built, so it measures only hash + put.
  const bare = new BareLedger(dir);
  let bare_entries: string[] = [];
  const prepareBareBatch = () => {
    prepareEngineBatch();
    bare_entries = batch.map((submission, index) => {
      const event = {
        event_type: 'key_backup_registered' as const,
        actor: submission.actor,
        data: { agent_id: submission.actor, ...(submission.payload as object), replaced_backup_pubkey: null },
      };
      return chainEntry({ seq: index, hash: '0'.repeat(64) }, now, event, submission.proof).json;
    });
  };

  try {
    const rates = await opsPerSecond([
      {
        name: 'engine',
        ops_per_call: batch_size,
        beforeEach: prepareEngineBatch,
        fn: async () => {
          await Promise.all(batch.map((submission) => engine.submit(submission)));
        },
      },
      {
        name: 'bare',
        ops_per_call: batch_size,
        beforeEach: prepareBareBatch,
        fn: () => bare.append(bare_entries),
      },
    ]);
    return { engine: rates.engine!, bare: rates.bare! };
  } finally {
    await store.close();
    await bare.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
