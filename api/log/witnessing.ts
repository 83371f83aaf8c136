import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { parseCheckpoint } from '../../client/tlog/checkpoint.js';
import { formatSignatureLine, keyIdHex, parseNote, type NoteSignature } from '../../client/tlog/note.js';
import type { WitnessEndpoint } from '../../client/tlog/witness_client.js';
import type { LogTree } from '../../engine/index.js';
import type { Checkpoints, SignedCheckpoint } from './checkpoints.js';
import type { CosignedCheckpoints } from './transparency_log.js';
import { WitnessFlow, type CosignedBy } from './witness_flow.js';
import { WITNESS_LIMITS, type WitnessLimits } from './witness_limits.js';

/** The newest checkpoint the witnesses cosigned, with their lines, in the data folder. */
export const COSIGNED_CHECKPOINT_FILE = 'log.cosigned';

/** The newest checkpoint any witness cosigned, and each witness's line on it, by signer (name and key id). */
interface Gathered {
  checkpoint: SignedCheckpoint;
  lines: Map<string, string>;
}

/**
 * The log's side of C2SP tlog-witness. Each configured witness has its own flow
 * (witness_flow.ts) that sends it the newest checkpoint whenever the log has grown,
 * within WITNESS_LIMITS. The lines that come back are gathered for the newest
 * cosigned checkpoint and kept in the data folder, so a restart serves them at once.
 *
 * Readers are always served the newest checkpoint the log signed, with the lines
 * witnesses gave for that very checkpoint: a cosignature signs one checkpoint text,
 * so the lines of an older size are never attached to a newer one. Right after the
 * log grows the served note has fewer cosignatures (none, until a witness's next
 * round answers); a witness that is slow, down or refusing never holds it back.
 */
export class Witnessing implements CosignedCheckpoints {
  private gathered: Gathered | undefined;
  private readonly flows: WitnessFlow[];
  private stopped = false;

  constructor(
    witnesses: readonly WitnessEndpoint[],
    private readonly checkpoints: Checkpoints,
    private readonly tree: LogTree,
    /** Where the newest cosigned note is kept (data folder). */
    private readonly file: string,
    log: (line: Record<string, unknown>) => void,
    limits: Readonly<WitnessLimits> = WITNESS_LIMITS,
  ) {
    // A proof may be asked for as a flow is being stopped: the tree's store may be closed soon after.
    const proofs = async (old_size: number, new_size: number) => {
      if (this.stopped) throw new Error('the service is stopping');
      return this.tree.consistencyProof(old_size, new_size);
    };
    this.flows = witnesses.map(
      (witness) =>
        new WitnessFlow(
          witness,
          limits,
          () => this.checkpoints.latest(),
          proofs,
          (c) => this.gather(c),
          log,
        ),
    );
    this.gathered = this.load();
  }

  /** The newest checkpoint the log signed, with the witnesses' lines on that checkpoint. */
  served(): SignedCheckpoint {
    const latest = this.checkpoints.latest();
    const gathered = this.gathered;
    if (!gathered || gathered.checkpoint.text !== latest.text) return latest;
    return { ...latest, note: cosignedNote({ checkpoint: latest, lines: gathered.lines }) };
  }

  /** The newest checkpoint any witness cosigned, with every line gathered for it; undefined before the first. */
  cosigned(): SignedCheckpoint | undefined {
    const gathered = this.gathered;
    return gathered && { ...gathered.checkpoint, note: cosignedNote(gathered) };
  }

  start(): void {
    for (const flow of this.flows) flow.start();
  }

  /** Stops every flow, aborting the requests in flight, and waits for them. */
  async stop(): Promise<void> {
    this.stopped = true;
    await Promise.all(this.flows.map((flow) => flow.stop()));
  }

  /** A witness's line: kept if it signs the newest cosigned checkpoint, or a newer one, which replaces it. */
  private gather({ checkpoint, signature, line }: CosignedBy): void {
    const gathered = this.gathered;
    if (gathered && gathered.checkpoint.text === checkpoint.text) gathered.lines.set(signer(signature), line);
    else if (!gathered || checkpoint.size > gathered.checkpoint.size)
      this.gathered = { checkpoint, lines: new Map([[signer(signature), line]]) };
    else return;
    const temporary = `${this.file}.tmp`;
    writeFileSync(temporary, cosignedNote(this.gathered!), { mode: 0o644 });
    renameSync(temporary, this.file);
  }

  /**
   * The cosigned note kept by an earlier run, if it is of this log and no larger than its
   * tree: the log's note (its own signature lines) and the witnesses' lines after it.
   */
  private load(): Gathered | undefined {
    if (!existsSync(this.file)) return undefined;
    try {
      const kept = readFileSync(this.file, 'utf8');
      const { text, signatures } = parseNote(kept);
      const checkpoint = parseCheckpoint(text);
      if (checkpoint.origin !== this.checkpoints.origin || checkpoint.size > this.tree.size) return undefined;
      if (Buffer.compare(this.tree.root(checkpoint.size), checkpoint.root_hash) !== 0) return undefined;
      const log_signatures = signatures.filter((signature) => signature.name === checkpoint.origin);
      const lines = signatures
        .filter((signature) => signature.name !== checkpoint.origin)
        .map((signature) => [signer(signature), line(signature)] as const);
      const note = `${text}\n${log_signatures.map(line).join('')}`;
      return { checkpoint: { size: checkpoint.size, root: checkpoint.root_hash, text, note }, lines: new Map(lines) };
    } catch {
      return undefined;
    }
  }
}

function cosignedNote({ checkpoint, lines }: Gathered): string {
  return checkpoint.note + [...lines.values()].join('');
}

/** Whose line it is: a witness's name and key id, so two keys of one name are two witnesses. */
function signer(signature: NoteSignature): string {
  return `${signature.name}+${keyIdHex(signature.key_id)}`;
}

function line(signature: NoteSignature): string {
  return formatSignatureLine(signature.name, signature.key_id, signature.signature);
}
