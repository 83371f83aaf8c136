import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayTick } from '../../engine/apply.js';
import { recoverState } from '../../engine/recover.js';
import { stateHash, type SocietyState } from '../../engine/state.js';
import { LmdbStore } from '../../engine/store/lmdb_store.js';
import { listBackups } from './backups.js';

export interface DrillResult {
  outcome: 'passed' | 'failed';
  detail: string;
  backup_id: string | null;
}

/**
 * A restore drill: the latest backup is copied into a scratch folder and restored
 * there, the live log after it is replayed onto it, and the state hash and ledger head
 * must equal the live ones. Every regenerated entry is compared with the live ledger,
 * so a tampered log fails at the first divergent seq. The live store is only read.
 */
export async function restoreDrill(live: LmdbStore, live_state: Readonly<SocietyState>, data_dir: string): Promise<DrillResult> {
  const latest = listBackups(data_dir).at(-1);
  if (!latest) return { outcome: 'failed', detail: 'no backup to restore from', backup_id: null };
  const scratch = mkdtempSync(join(tmpdir(), 'tessera-drill-'));
  let restored: LmdbStore | undefined;
  try {
    cpSync(latest.path, scratch, { recursive: true });
    restored = new LmdbStore(scratch);
    let state: SocietyState;
    try {
      state = recoverState(restored);
    } catch (error) {
      return { outcome: 'failed', detail: `the backup does not restore: ${(error as Error).message}`, backup_id: latest.backup_id };
    }
    const head = live.ledgerHead();
    for (const record of live.ticksAfter(state.tick)) {
      let entries;
      try {
        entries = replayTick(state, record);
      } catch (error) {
        return { outcome: 'failed', detail: `the log does not replay at tick ${record.tick}: ${(error as Error).message}`, backup_id: latest.backup_id };
      }
      for (const entry of entries) {
        if (entry.seq > head.seq) break;
        if (live.ledgerHash(entry.seq) !== entry.hash) return { outcome: 'failed', detail: `replay diverges from the live ledger at seq ${entry.seq}`, backup_id: latest.backup_id };
      }
    }
    if (state.ledger_head.seq !== head.seq || state.ledger_head.hash !== head.hash) {
      return { outcome: 'failed', detail: `restored head ${state.ledger_head.seq} differs from the live head ${head.seq}`, backup_id: latest.backup_id };
    }
    const restored_hash = stateHash(state);
    const live_hash = stateHash(live_state);
    if (restored_hash !== live_hash) return { outcome: 'failed', detail: `state hash ${restored_hash} differs from the live ${live_hash}`, backup_id: latest.backup_id };
    return { outcome: 'passed', detail: `restored ${latest.backup_id} and replayed to seq ${head.seq}; state hash ${live_hash}; head ${head.hash}`, backup_id: latest.backup_id };
  } finally {
    await restored?.close();
    rmSync(scratch, { recursive: true, force: true });
  }
}
