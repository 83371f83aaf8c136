import { formatCheckpoint } from '../../client/tlog/checkpoint.js';
import { formatSignatureLine } from '../../client/tlog/note.js';
import type { LogTree } from '../../engine/index.js';
import type { LogKey } from './log_key.js';

/** A checkpoint as the log signed it: the note's text, and the whole note with the log's signature. */
export interface SignedCheckpoint {
  size: number;
  root: Uint8Array;
  /** The checkpoint body (origin, size, base64 root), newline-terminated: what is signed. */
  text: string;
  /** The signed note: the text, a blank line, the log's signature line. */
  note: string;
}

/**
 * The log's checkpoints, signed on demand: whoever needs one that covers a size (a
 * receipt for an act just committed, a reader of /log/checkpoint, the once-a-second
 * publisher) gets the newest, and a new one is signed only when the durable ledger
 * has grown past it. Under load one signature serves every act of a tick.
 */
export class Checkpoints {
  private newest: SignedCheckpoint;

  constructor(
    private readonly key: LogKey,
    private readonly tree: LogTree,
    /** The durable ledger head's seq: the largest size a reader may be shown. */
    private readonly durable_size: () => number,
  ) {
    this.newest = this.sign(durable_size());
  }

  get origin(): string {
    return this.key.origin;
  }

  get vkey(): string {
    return this.key.vkey;
  }

  /** The newest checkpoint, signed now if the durable ledger has grown since the last one. */
  latest(): SignedCheckpoint {
    const size = this.durable_size();
    if (size > this.newest.size) this.newest = this.sign(size);
    return this.newest;
  }

  /** A checkpoint whose tree holds leaf_index; undefined when that leaf is not durable yet. */
  covering(leaf_index: number): SignedCheckpoint | undefined {
    const checkpoint = this.latest();
    return leaf_index < checkpoint.size ? checkpoint : undefined;
  }

  private sign(size: number): SignedCheckpoint {
    const root = this.tree.root(size);
    const text = formatCheckpoint({ origin: this.key.origin, size, root_hash: root, extensions: [] });
    const signature = this.key.sign(new TextEncoder().encode(text));
    const note = `${text}\n${formatSignatureLine(this.key.origin, this.key.key_id, signature)}`;
    return { size, root, text, note };
  }
}
