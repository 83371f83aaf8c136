import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { generateKey, type AgentKey } from '../client/keys.js';
import { TesseraClient } from '../client/sdk.js';
import { DEFAULT_RETRY_POLICY } from '../client/retry_policy.js';
import { verifyLedger } from '../client/verify.js';
import { fromBase64 } from '../client/tlog/base64.js';
import { nobleHasher } from '../client/tlog/hasher.js';
import { verifyConsistency } from '../client/tlog/merkle.js';
import { verifyReceipt, type Receipt } from '../client/tlog/receipt.js';
import { verifyLog } from '../client/tlog/verify_log.js';
import { recoverState } from '../engine/recover.js';
import { stateHash } from '../engine/state.js';
import { LmdbStore } from '../engine/store/lmdb_store.js';
import { startChildServer } from './helpers/child_server.js';
import { tempDir } from './helpers/society.js';

const data_dir = tempDir('tessera-crash-');
afterAll(() => rmSync(data_dir, { recursive: true, force: true }));

interface Acknowledged {
  agent_id: string;
  backup_pubkey: string;
  seq: number;
  receipt: Receipt;
}

/** Each agent keeps replacing its backup key until the connection dies, recording what was answered 2xx. */
async function load(url: string, agents: AgentKey[], acknowledged: Acknowledged[]): Promise<void> {
  await Promise.all(
    agents.map(async (key) => {
      // The load stops when the server dies, rather than ride through its absence as the SDK does by default.
      const client = new TesseraClient(url, key, fetch, {
        retry_policy: { ...DEFAULT_RETRY_POLICY, retry_budget_ms: 0 },
      });
      for (;;) {
        const backup = await generateKey();
        try {
          const answer = await client.registerBackupKey(backup.public_key);
          acknowledged.push({
            agent_id: key.agent_id,
            backup_pubkey: backup.public_key,
            seq: (answer as { ledger: { first_seq: number } }).ledger.first_seq,
            receipt: (answer as { receipt: Receipt }).receipt,
          });
        } catch {
          return; // the server was killed
        }
      }
    }),
  );
}

describe('crash safety', () => {
  it('keeps every act answered 2xx across SIGKILLs under concurrent signed load', async () => {
    // Snapshots often enough that a round of a dozen acts, however its ticks fall, takes one.
    const env = { DATA_DIR: data_dir, SNAPSHOT_EVERY_TICKS: '5' };
    const agents = await Promise.all(Array.from({ length: 8 }, () => generateKey()));
    const acknowledged: Acknowledged[] = [];

    let server = await startChildServer(env);
    for (const [index, key] of agents.entries()) await new TesseraClient(server.url, key).register(`crash-${index}`);

    for (let round = 0; round < 3; round++) {
      const running = load(server.url, agents, acknowledged);
      // Killed at a moment left to chance, once this round has had a dozen acts acknowledged (a busy machine takes longer).
      const wanted = acknowledged.length + 12;
      await new Promise((resolve) => setTimeout(resolve, 250 + Math.random() * 500));
      for (let waited_ms = 0; acknowledged.length < wanted && waited_ms < 20_000; waited_ms += 20)
        await new Promise((resolve) => setTimeout(resolve, 20));
      await server.kill('SIGKILL');
      await running;
      server = await startChildServer(env);
    }
    expect(acknowledged.length).toBeGreaterThan(30);
    console.log(`crash test: ${acknowledged.length} acts acknowledged across 3 SIGKILLs`);

    // Every acknowledged act is on the ledger, at the seq it was answered with.
    const entries = new Map<number, { event_type: string; actor: string; data: Record<string, unknown> }>();
    for (let from = 1; ; ) {
      const page = (await (await fetch(`${server.url}/api/v1/ledger?from=${from}&limit=1000`)).json()) as any;
      for (const entry of page.entries) entries.set(entry.seq, entry);
      if (page.next_from === null) break;
      from = page.next_from;
    }
    for (const act of acknowledged) {
      expect(entries.get(act.seq), `seq ${act.seq}`).toMatchObject({
        event_type: 'key_backup_registered',
        actor: act.agent_id,
        data: { backup_pubkey: act.backup_pubkey },
      });
    }
    const report = await verifyLedger(server.url);
    expect(report.ok).toBe(true);

    // The Merkle tree, appended in the same commits, came through the kills whole: the tiles fold to the signed
    // root, every receipt handed out still checks, and the log now extends each receipt's checkpoint.
    const vkey = (await (await fetch(`${server.url}/log/key`)).text()).trim();
    const log_report = await verifyLog(server.url, { vkey });
    expect(log_report.failed).toBeUndefined();
    const sizes_proven = new Set<number>();
    for (const act of acknowledged) {
      const checked = await verifyReceipt(act.receipt, vkey);
      if (!checked.ok) throw new Error(`receipt of seq ${act.seq}: ${checked.reason}`);
      const { size, root: root_hash } = checked.checkpoint;
      if (sizes_proven.has(size)) continue;
      sizes_proven.add(size);
      const proof = (await (
        await fetch(`${server.url}/log/proof/consistency?old=${size}&new=${log_report.checkpoint!.size}`)
      ).json()) as { consistency_proof: string[] };
      const final_root = fromBase64(log_report.checkpoint!.root_hash);
      expect(
        verifyConsistency(
          nobleHasher,
          size,
          log_report.checkpoint!.size,
          root_hash,
          final_root,
          proof.consistency_proof.map(fromBase64),
        ),
        `the log extends the checkpoint of size ${size}`,
      ).toBe(true);
    }
    await server.kill('SIGTERM');

    // The recovered state equals a replay of the log alone.
    const store = new LmdbStore(join(data_dir, 'store'));
    try {
      expect(store.latestSnapshot()).toBeDefined();
      expect(stateHash(recoverState(store))).toBe(stateHash(recoverState(store, { use_snapshot: false })));
    } finally {
      await store.close();
    }
  }, 120_000);
});
