import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { takeBackup, type TakenBackup } from '../../api/operations/backups.js';
import { Engine, type Submission } from '../../engine/engine.js';
import { agentIdOf } from '../../engine/identity.js';
import { LmdbStore } from '../../engine/store/lmdb_store.js';
import { startChildServer } from './child_server.js';

export interface GrownSociety {
  ledger_seq: number;
  /** The backup taken on the way, when one was asked for. */
  backup?: TakenBackup;
}

const publicKey = () => (generateKeyPairSync('ed25519').publicKey.export({ format: 'jwk' }) as { x: string }).x;

/**
 * A society with a long ledger, at engine speed rather than HTTP speed: the server
 * founds it in DATA_DIR (and writes the Founder key there) and stops, then members
 * with real keys are registered and keep swapping between two backup keys of their
 * own through the engine until the ledger holds `entries`; with `backup_at_seq`, a
 * backup is taken once the ledger passes that seq.
 */
export async function growSociety(data_dir: string, { entries, backup_at_seq, members = 2000 }: { entries: number; backup_at_seq?: number; members?: number }): Promise<GrownSociety> {
  const founding = await startChildServer({ DATA_DIR: data_dir, BACKUP_EVERY_SECONDS: '0' });
  await founding.kill('SIGTERM');
  const store = new LmdbStore(join(data_dir, 'store'));
  const engine = await Engine.open(store, {}, { clock: Date.now, snapshot_every_ticks: 200 });
  try {
    const keys = Array.from({ length: members }, () => ({ pubkey: publicKey(), backups: [publicKey(), publicKey()] as const }));
    const ids = keys.map(({ pubkey }) => agentIdOf(pubkey));
    const registered = await Promise.all(keys.map(({ pubkey }, i) => engine.submit({ act: 'register', actor: ids[i]!, payload: { pubkey, handle: `grown-${i}`, declared_runtime: '', backup_pubkey: null } })));
    if (!registered.every((outcome) => outcome.ok)) throw new Error('registration refused while growing the society');
    let backup: TakenBackup | undefined;
    for (let round = 0; engine.state.ledger_head.seq < entries; round++) {
      // One act per member per round, so each member alternates between its two keys.
      const batch: Submission[] = ids.map((actor, i) => ({ act: 'key_backup_register', actor, payload: { backup_pubkey: keys[i]!.backups[round % 2]! } }));
      const outcomes = await Promise.all(batch.map((submission) => engine.submit(submission)));
      if (!outcomes.every((outcome) => outcome.ok)) throw new Error('a filler act was refused while growing the society');
      if (backup_at_seq !== undefined && !backup && engine.state.ledger_head.seq >= backup_at_seq) backup = await takeBackup(store, data_dir, Date.now(), 24);
    }
    await engine.drain();
    return { ledger_seq: engine.state.ledger_head.seq, ...(backup ? { backup } : {}) };
  } finally {
    await store.close();
  }
}
