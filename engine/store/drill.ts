import { mkdtempSync } from 'node:fs';
import { copyFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { StoreIntegrityError } from '../ledger_integrity.js';
import { recoverState } from '../recover.js';
import { stateHash, type SocietyState } from '../state.js';
import { BACKUP_DATA_FILE, digestMismatch } from './backup_manifest.js';
import { scanBackups, type Backup, type SkippedBackup } from './backups.js';
import { LmdbStore } from './lmdb_store.js';
import { firstWrongTreeLeaf } from '../log/tree_build.js';
import type { EngineStore } from './types.js';

/**
 * The live society at one consistent point, taken by the server between ticks: the
 * drill replays the live log up to exactly this tick and must arrive here.
 */
export interface DrillTarget {
  tick: number;
  ledger_seq: number;
  ledger_hash: string;
  state_hash: string;
}

export interface DrillResult {
  outcome: 'passed' | 'failed';
  detail: string;
  backup_id: string | null;
  /** On failure, the first ledger seq found wrong, where one can be named. */
  first_bad_seq?: number;
  /** Backups passed over (incomplete, unreadable, checksum mismatch), newest last. */
  skipped: SkippedBackup[];
}

export interface DrillProgress {
  backup_id: string;
  phase: 'checksum' | 'restore' | 'compare' | 'replay' | 'proofs' | 'tree';
  done: number;
  total: number;
}

/**
 * The verifier's recipe over the live ledger's entries before `before_seq` (chain,
 * hash, each proof against the key registered earlier): the first problem, if any.
 * The host brings it (api/store_verify.ts); the store knows no signature arithmetic.
 */
export type ProofCheck = (
  live: EngineStore,
  before_seq: number,
  on_progress: (progress: { done: number; total: number }) => void,
) => Promise<{ seq: number; reason: string } | undefined>;

/** Log ticks replayed between two turns of the event loop (progress messages go out then). */
const TICKS_PER_TURN = 2000;
/** Entries compared per page between the backup's ledger and the live one. */
const ENTRIES_PER_PAGE = 10_000;

export function drillTarget(state: Readonly<SocietyState>): DrillTarget {
  return {
    tick: state.tick,
    ledger_seq: state.ledger_head.seq,
    ledger_hash: state.ledger_head.hash,
    state_hash: stateHash(state),
  };
}

/**
 * A restore drill, run in its own process (see drill_child.ts): the newest complete
 * backup whose data.mdb matches its manifest's SHA-256 is copied into a scratch
 * folder and restored there; every live entry up to the backup's head must equal the
 * backup's byte for byte, the live log after it is replayed up to the target tick,
 * and every regenerated entry must equal the live one byte for byte (an entry whose
 * data was edited fails even when its stored hash was kept). The state hash and head
 * must then be the target's, and every live entry up to the target must pass the
 * verifier's recipe (chain, hash, each proof against the key registered earlier), so a
 * history rewritten consistently in the log, the ledger and the backup still fails
 * at the first entry whose signature it could not forge. Backups that fail their checksum are skipped and
 * reported; the drill only reads the live store. The replay is recoverState's own,
 * run from the restored state in stretches of TICKS_PER_TURN ticks.
 */
export async function restoreDrill(
  live: LmdbStore,
  target: DrillTarget,
  data_dir: string,
  proofProblem: ProofCheck,
  on_progress: (progress: DrillProgress) => void = () => {},
): Promise<DrillResult> {
  const { complete, skipped } = scanBackups(data_dir);
  for (const backup of complete.reverse()) {
    const scratch = mkdtempSync(join(tmpdir(), 'tessera-drill-'));
    try {
      on_progress({ backup_id: backup.backup_id, phase: 'checksum', done: 0, total: backup.manifest.data_bytes });
      const copy = join(scratch, BACKUP_DATA_FILE);
      // The copy is what gets checked and opened, so a file changing under the drill cannot slip between the two.
      await copyFile(join(backup.path, BACKUP_DATA_FILE), copy);
      const mismatch = await digestMismatch(copy, backup.manifest);
      if (mismatch) {
        skipped.push({ name: backup.backup_id, reason: mismatch });
        continue;
      }
      const verdict = await drillFrom(scratch, backup, live, target, proofProblem, on_progress);
      return {
        outcome: verdict.failed ? 'failed' : 'passed',
        detail: `${verdict.failed ?? verdict.passed}${skippedNote(skipped)}`,
        backup_id: backup.backup_id,
        ...(verdict.first_bad_seq !== undefined ? { first_bad_seq: verdict.first_bad_seq } : {}),
        skipped,
      };
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  }
  return {
    outcome: 'failed',
    detail: `no complete backup to restore from${skippedNote(skipped)}`,
    backup_id: null,
    skipped,
  };
}

type Verdict =
  | { passed: string; failed?: undefined; first_bad_seq?: undefined }
  | { failed: string; first_bad_seq?: number };

async function drillFrom(
  scratch: string,
  backup: Backup,
  live: LmdbStore,
  target: DrillTarget,
  proofProblem: ProofCheck,
  on_progress: (progress: DrillProgress) => void,
): Promise<Verdict> {
  const { backup_id, manifest } = backup;
  const restored = new LmdbStore(scratch);
  try {
    on_progress({ backup_id, phase: 'restore', done: 0, total: restored.lastTick() });
    let state: SocietyState;
    try {
      state = recoverState(restored);
    } catch (error) {
      return { failed: `the backup ${backup_id} does not restore: ${(error as Error).message}` };
    }
    if (manifest.ledger_seq > 0 && restored.ledgerHash(manifest.ledger_seq) !== manifest.ledger_hash) {
      return {
        failed: `the backup ${backup_id} does not hold the entry its manifest names at seq ${manifest.ledger_seq}`,
      };
    }
    const backup_head = state.ledger_head.seq;
    if (backup_head > target.ledger_seq)
      return {
        failed: `the backup ${backup_id} reaches seq ${backup_head}, beyond the live head ${target.ledger_seq}`,
      };

    const differing = await firstDifferingEntry(restored, live, backup_head, (done) =>
      on_progress({ backup_id, phase: 'compare', done, total: backup_head }),
    );
    if (differing !== undefined)
      return {
        failed: `the live ledger differs from the backup ${backup_id} at seq ${differing}`,
        first_bad_seq: differing,
      };

    const replayed = await replayLiveLog(state, live, target, (done) =>
      on_progress({ backup_id, phase: 'replay', done, total: target.tick }),
    );
    if (replayed) return replayed;

    if (state.ledger_head.seq !== target.ledger_seq || state.ledger_head.hash !== target.ledger_hash) {
      return {
        failed: `the replay ends at seq ${state.ledger_head.seq}, not at the live head ${target.ledger_seq}`,
        first_bad_seq: Math.min(state.ledger_head.seq, target.ledger_seq) + 1,
      };
    }
    const restored_hash = stateHash(state);
    if (restored_hash !== target.state_hash)
      return { failed: `the restored state hash ${restored_hash} differs from the live ${target.state_hash}` };
    const unproven = await proofProblem(live, target.ledger_seq + 1, ({ done }) =>
      on_progress({ backup_id, phase: 'proofs', done, total: target.ledger_seq }),
    );
    if (unproven)
      return {
        failed: `the live ledger fails the recipe at seq ${unproven.seq}: ${unproven.reason}`,
        first_bad_seq: unproven.seq,
      };
    const wrong_leaf = await firstWrongTreeLeaf(live, target.ledger_seq, (done) =>
      on_progress({ backup_id, phase: 'tree', done, total: target.ledger_seq }),
    );
    if (wrong_leaf !== undefined)
      return {
        failed: `the live Merkle tree is not the one the ledger makes, from the leaf of seq ${wrong_leaf}`,
        first_bad_seq: wrong_leaf,
      };
    return {
      passed:
        `restored ${backup_id} (seq ${backup_head}) and replayed the live log to seq ${target.ledger_seq}, ` +
        `every entry equal to the live one byte for byte, every proof verified and the Merkle tree rebuilt equal; ` +
        `state hash ${restored_hash}; head ${target.ledger_hash}`,
    };
  } finally {
    await restored.close();
  }
}

/** The first seq in 1..last_seq where the two ledgers' stored JSON differs (or one lacks the entry). */
async function firstDifferingEntry(
  backup: LmdbStore,
  live: LmdbStore,
  last_seq: number,
  on_page: (done: number) => void,
): Promise<number | undefined> {
  for (let from = 1; from <= last_seq; from += ENTRIES_PER_PAGE) {
    const limit = Math.min(ENTRIES_PER_PAGE, last_seq - from + 1);
    const ours = backup.ledgerPage(from, limit);
    const theirs = live.ledgerPage(from, limit);
    for (let index = 0; index < limit; index++) {
      if (ours[index] === undefined || ours[index] !== theirs[index]) return from + index;
    }
    on_page(from + limit - 1);
    await nextTurn();
  }
  return undefined;
}

/**
 * Replays the live log onto the restored state up to the target tick with
 * recoverState, each regenerated entry checked against the live one, in stretches
 * with a turn of the event loop between them (each stretch reads in its own
 * transaction). The first wrong entry fails the drill at its seq.
 */
async function replayLiveLog(
  state: SocietyState,
  live: EngineStore,
  target: DrillTarget,
  on_stretch: (tick: number) => void,
): Promise<Verdict | undefined> {
  while (state.tick < target.tick) {
    const before_tick = state.tick;
    try {
      recoverState(live, { from_state: state, until_tick: Math.min(target.tick, state.tick + TICKS_PER_TURN) });
    } catch (error) {
      if (!(error instanceof StoreIntegrityError)) throw error;
      const failed = `the live ledger differs from its replay at seq ${error.seq}: ${error.reason}`;
      return { failed, first_bad_seq: error.seq };
    }
    if (state.tick === before_tick) {
      const failed = `the live log ends at tick ${state.tick}, before the live tick ${target.tick}`;
      return { failed, first_bad_seq: state.ledger_head.seq + 1 };
    }
    on_stretch(state.tick);
    await nextTurn();
  }
  return undefined;
}

function skippedNote(skipped: SkippedBackup[]): string {
  return skipped.length === 0 ? '' : `; skipped ${skipped.map(({ name, reason }) => `${name} (${reason})`).join(', ')}`;
}
