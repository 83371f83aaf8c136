import { stateFromImage, LmdbStore, drillTarget, restoreDrill, type DrillResult } from '../../engine/index.js';
import { firstProofProblem } from '../store_verify.js';
import type { DrillJob, DrillMessage } from './drill_process.js';

/**
 * The restore drill's own process. LMDB maps the backup copy and the live store into
 * memory; a damaged file can kill the process that opens it (SIGBUS), and that must
 * be this one, never the server. It opens the live store read-only.
 */
const send = (message: DrillMessage) => process.send!(message);

async function run(job: DrillJob): Promise<DrillResult> {
  const live = new LmdbStore(job.live_store_path, { read_only: true });
  try {
    const target = drillTarget(stateFromImage(job.live));
    return await restoreDrill(live, target, job.data_dir, firstProofProblem, (progress) => send({ progress }));
  } finally {
    await live.close();
  }
}

// Orphaned by a server that died: stop rather than hold a read transaction on its store.
process.on('disconnect', () => process.exit(1));
process.once('message', (job: DrillJob) => {
  run(job)
    .catch(
      (error: unknown): DrillResult => ({
        outcome: 'failed',
        detail: `the drill stopped: ${error instanceof Error ? error.message : String(error)}`,
        backup_id: null,
        skipped: [],
      }),
    )
    .then((result) => process.send!({ result } satisfies DrillMessage, () => process.exit(0)));
});
