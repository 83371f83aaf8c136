import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseCheckpoint } from '../../client/tlog/checkpoint.js';
import { parseNote } from '../../client/tlog/note.js';
import { WitnessClient, type WitnessEndpoint } from '../../client/tlog/witness_client.js';
import type { LogTree } from '../../engine/index.js';
import type { Checkpoints, SignedCheckpoint } from './checkpoints.js';
import type { CosignedCheckpoints } from './transparency_log.js';

/** The newest checkpoint the witnesses cosigned, with their lines, in the data folder. */
export const COSIGNED_CHECKPOINT_FILE = 'log.cosigned';

/** How often the newest checkpoint goes to the witnesses, when the log has grown. */
const WITNESS_EVERY_MS = 1000;

/**
 * The log's side of C2SP tlog-witness. Once a second, if the log has grown, the newest
 * checkpoint goes to every configured witness with the consistency proof from the size
 * that witness last cosigned; the cosignatures that come back are appended to the note,
 * kept in the data folder (so a restart serves them at once), and that note is the
 * checkpoint readers are served. A witness that refuses or is unreachable is reported
 * and asked again next round; the others' cosignatures are served meanwhile.
 */
export class Witnessing implements CosignedCheckpoints {
  private newest: SignedCheckpoint | undefined;
  private readonly clients: WitnessClient[];
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;
  private stopped = false;

  constructor(
    witnesses: readonly WitnessEndpoint[],
    private readonly checkpoints: Checkpoints,
    private readonly tree: LogTree,
    /** Where the newest cosigned note is kept (data folder). */
    private readonly file: string,
    private readonly log: (line: Record<string, unknown>) => void,
  ) {
    this.clients = witnesses.map((witness) => new WitnessClient(witness));
    this.newest = this.load();
  }

  cosigned(): SignedCheckpoint | undefined {
    return this.newest;
  }

  start(): void {
    this.timer = setInterval(() => void this.round(), WITNESS_EVERY_MS);
    this.timer.unref();
  }

  /** Stops the rounds and waits for one in flight: the store may be closed right after. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  /** One round: the newest checkpoint to every witness, unless the witnessed one is as new. */
  round(): Promise<void> {
    if (this.stopped || this.running) return this.running ?? Promise.resolve();
    this.running = this.witness().finally(() => {
      this.running = undefined;
    });
    return this.running;
  }

  private async witness(): Promise<void> {
    const checkpoint = this.checkpoints.latest();
    if (this.newest && checkpoint.size <= this.newest.size) return;
    // A proof is asked for after a witness answers 409, maybe after stop(): the tree's store may be closed then.
    const proofs = async (old_size: number, new_size: number) => {
      if (this.stopped) throw new Error('the service is stopping');
      return this.tree.consistencyProof(old_size, new_size);
    };
    const answers = await Promise.allSettled(
      this.clients.map((client) => client.addCheckpoint(checkpoint.note, proofs)),
    );
    const lines: string[] = [];
    answers.forEach((answer, index) => {
      if (answer.status === 'fulfilled') lines.push(answer.value.line);
      else
        this.log({
          witness: this.clients[index]!.name,
          refused: String((answer.reason as Error).message ?? answer.reason),
        });
    });
    if (lines.length === 0) return;
    this.newest = { ...checkpoint, note: checkpoint.note + lines.join('') };
    const temporary = `${this.file}.tmp`;
    writeFileSync(temporary, this.newest.note, { mode: 0o644 });
    renameSync(temporary, this.file);
  }

  /** The cosigned note kept by an earlier run, if it is of this log and no larger than its tree. */
  private load(): SignedCheckpoint | undefined {
    if (!existsSync(this.file)) return undefined;
    try {
      const note = readFileSync(this.file, 'utf8');
      const { text } = parseNote(note);
      const checkpoint = parseCheckpoint(text);
      if (checkpoint.origin !== this.checkpoints.origin || checkpoint.size > this.tree.size) return undefined;
      if (Buffer.compare(this.tree.root(checkpoint.size), checkpoint.root_hash) !== 0) return undefined;
      return { size: checkpoint.size, root: checkpoint.root_hash, text, note };
    } catch {
      return undefined;
    }
  }
}
