import { join } from 'node:path';
import { takeBackup, type TakenBackup } from '../../engine/store/backups.js';
import { Engine, type Submission } from '../../engine/engine.js';
import { LmdbStore } from '../../engine/store/lmdb_store.js';
import { freshPubkey } from '../../bench/members.js';
import { SigningMember } from '../../bench/signing_member.js';
import { startChildServer } from './child_server.js';

export interface GrownSociety {
  ledger_seq: number;
  /** The backup taken on the way, when one was asked for. */
  backup?: TakenBackup;
}

/**
 * A society with a long ledger, at engine speed rather than HTTP speed: the server
 * founds it in DATA_DIR (and writes the Founder key there) and stops, then members
 * with real keys are registered and keep swapping between two backup keys of their
 * own through the engine until the ledger holds `entries`, every act signed for real
 * so that drills and replays find a proof on every member entry; with `backup_at_seq`, a
 * backup is taken once the ledger passes that seq.
 */
export async function growSociety(
  data_dir: string,
  { entries, backup_at_seq, members = 2000 }: { entries: number; backup_at_seq?: number; members?: number },
): Promise<GrownSociety> {
  const founding = await startChildServer({ DATA_DIR: data_dir, BACKUP_EVERY_SECONDS: '0' });
  await founding.kill('SIGTERM');
  const store = new LmdbStore(join(data_dir, 'store'));
  const engine = await Engine.open(store, {}, { clock: Date.now, snapshot_every_ticks: 200 });
  try {
    const signers = Array.from({ length: members }, () => ({
      member: new SigningMember(),
      backups: [freshPubkey(), freshPubkey()] as const,
    }));
    const registered = await Promise.all(signers.map(({ member }, i) => engine.submit(member.register(`grown-${i}`))));
    if (!registered.every((outcome) => outcome.ok)) throw new Error('registration refused while growing the society');
    let backup: TakenBackup | undefined;
    for (let round = 0; engine.state.ledger_head.seq < entries; round++) {
      // One act per member per round, so each member alternates between its two keys.
      const batch: Submission[] = signers.map(({ member, backups }) => member.registerBackupKey(backups[round % 2]!));
      const outcomes = await Promise.all(batch.map((submission) => engine.submit(submission)));
      if (!outcomes.every((outcome) => outcome.ok))
        throw new Error('a filler act was refused while growing the society');
      if (backup_at_seq !== undefined && !backup && engine.state.ledger_head.seq >= backup_at_seq)
        backup = await takeBackup(store, data_dir, Date.now(), 24);
    }
    await engine.drain();
    return { ledger_seq: engine.state.ledger_head.seq, ...(backup ? { backup } : {}) };
  } finally {
    await store.close();
  }
}
