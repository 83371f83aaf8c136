import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { takeBackup } from '../engine/store/backups.js';
import { drillTarget, restoreDrill } from '../engine/store/drill.js';
import { Engine, type Submission } from '../engine/engine.js';
import { recoverState } from '../engine/recover.js';
import { LmdbStore } from '../engine/store/lmdb_store.js';
import { firstProofProblem } from '../api/store_verify.js';
import { freshPubkey } from './members.js';
import { SigningMember } from './signing_member.js';

/**
 * A society with at least a million ledger entries: a backup half-way, then a restore
 * drill (restore the backup in a scratch folder, replay the live log after it, compare,
 * verify every proof), beside a full replay of the whole log from nothing. Seconds for each.
 */
export async function benchDrill(
  entries_target = 1_000_000,
): Promise<{ drill_seconds: number; full_replay_seconds: number; entries: number; outcome: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-bench-drill-'));
  const store = new LmdbStore(join(dir, 'store'));
  let now = Date.parse('2026-11-21T10:00:00Z');
  const engine = await Engine.open(
    store,
    { founder_pubkey: freshPubkey() },
    { clock: () => (now += 1), snapshot_every_ticks: 40 },
  );
  try {
    // Signed for real: the drill checks every member entry's proof, as it would on a society grown over HTTP.
    const signers = Array.from({ length: 1024 }, () => ({
      member: new SigningMember(),
      backups: [freshPubkey(), freshPubkey()] as const,
    }));
    if (
      !(await Promise.all(signers.map(({ member }, i) => engine.submit(member.register(`m-${i}`))))).every(
        (outcome) => outcome.ok,
      )
    )
      throw new Error('bench registration refused');
    let backed_up = false;
    for (let round = 0; engine.state.ledger_head.seq < entries_target; round++) {
      // Each member swaps between two backup keys of its own, so no key is ever taken by another.
      const batch: Submission[] = signers.map(({ member, backups }) => member.registerBackupKey(backups[round % 2]!));
      await Promise.all(batch.map((submission) => engine.submit(submission)));
      if (!backed_up && engine.state.ledger_head.seq >= entries_target / 2) {
        await takeBackup(store, dir, now, 1);
        backed_up = true;
      }
    }
    await engine.drain();
    let started = performance.now();
    const drill = await restoreDrill(store, drillTarget(engine.state), dir, firstProofProblem);
    const drill_seconds = (performance.now() - started) / 1000;
    started = performance.now();
    recoverState(store, { use_snapshot: false });
    const full_replay_seconds = (performance.now() - started) / 1000;
    if (drill.outcome !== 'passed') throw new Error(`the drill failed: ${drill.detail}`);
    return { drill_seconds, full_replay_seconds, entries: engine.state.ledger_head.seq, outcome: drill.outcome };
  } finally {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
