import { open, readFile, rename } from 'node:fs/promises';
import { dirname } from 'node:path';

/** What the witness remembers of one log: the last checkpoint it cosigned. */
export interface CosignedCheckpoint {
  size: number;
  /** Standard base64, as in the checkpoint. */
  root_hash: string;
  /** The checkpoint note with the log signatures the witness verified and its own cosignature. */
  note: string;
}

interface StateDocument {
  version: 1;
  logs: Record<string, CosignedCheckpoint>;
}

/**
 * The witness's memory, one JSON file: per log origin, the last checkpoint it cosigned.
 * Each change is written to a temporary file, flushed to disk, renamed over the old one
 * and the folder flushed, before the witness answers: a cosignature it returned is never
 * forgotten by a crash, and a crash mid-write leaves the previous file whole.
 */
export class WitnessStateFile {
  private constructor(
    private readonly path: string,
    private readonly logs: Map<string, CosignedCheckpoint>,
  ) {}

  static async load(path: string): Promise<WitnessStateFile> {
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return new WitnessStateFile(path, new Map());
      throw error;
    }
    const document = JSON.parse(text) as StateDocument;
    if (document?.version !== 1 || typeof document.logs !== 'object' || document.logs === null)
      throw new Error(`${path}: not a witness state file (version 1)`);
    for (const [origin, held] of Object.entries(document.logs))
      if (!Number.isSafeInteger(held?.size) || typeof held.root_hash !== 'string' || typeof held.note !== 'string')
        throw new Error(`${path}: the entry of ${JSON.stringify(origin)} is damaged`);
    return new WitnessStateFile(path, new Map(Object.entries(document.logs)));
  }

  get(origin: string): CosignedCheckpoint | undefined {
    return this.logs.get(origin);
  }

  /** Records the log's new checkpoint durably; the memory changes only once the disk has it. */
  async put(origin: string, checkpoint: CosignedCheckpoint): Promise<void> {
    const next = new Map(this.logs).set(origin, checkpoint);
    const document: StateDocument = { version: 1, logs: Object.fromEntries(next) };
    await writeDurably(this.path, JSON.stringify(document, null, 2) + '\n');
    this.logs.set(origin, checkpoint);
  }
}

async function writeDurably(path: string, text: string): Promise<void> {
  const temporary = `${path}.${process.pid}.tmp`;
  const file = await open(temporary, 'w', 0o600);
  try {
    await file.writeFile(text);
    await file.sync();
  } finally {
    await file.close();
  }
  await rename(temporary, path);
  // The rename itself lives in the folder's entry: flush it too, or a power cut may undo it.
  const folder = await open(dirname(path), 'r');
  try {
    await folder.sync();
  } finally {
    await folder.close();
  }
}
