import { fromBase64, toBase64 } from './base64.js';
import { HASH_BYTES } from './hasher.js';

/**
 * The text of a checkpoint, C2SP tlog-checkpoint v1.0.0 (https://c2sp.org/tlog-checkpoint):
 * the origin line, the tree size in decimal with no leading zero, the base64 RFC 6962
 * root hash, then optional non-empty extension lines, each line ending in a newline.
 * The checkpoint itself is a signed note whose text this is (note.ts).
 */
export interface Checkpoint {
  origin: string;
  /** Leaves in the tree. A number: exact up to 2^53 - 1 leaves, far beyond any ledger. */
  size: number;
  root_hash: Uint8Array;
  /** Opaque lines after the root hash; the spec recommends none. */
  extensions: string[];
}

export class MalformedCheckpointError extends Error {
  constructor(reason: string) {
    super(`malformed checkpoint: ${reason}`);
  }
}

export function formatCheckpoint(checkpoint: Checkpoint): string {
  if (checkpoint.origin === '' || checkpoint.origin.includes('\n')) throw new Error('checkpoint: bad origin');
  if (!Number.isSafeInteger(checkpoint.size) || checkpoint.size < 0) throw new Error('checkpoint: bad size');
  if (checkpoint.root_hash.length !== HASH_BYTES) throw new Error('checkpoint: the root hash is not 32 bytes');
  if (checkpoint.extensions.some((line) => line === '' || line.includes('\n')))
    throw new Error('checkpoint: an extension line is empty or has a newline');
  const lines = [checkpoint.origin, String(checkpoint.size), toBase64(checkpoint.root_hash), ...checkpoint.extensions];
  return lines.map((line) => `${line}\n`).join('');
}

/** Parses a note text as a checkpoint. Throws MalformedCheckpointError. */
export function parseCheckpoint(text: string): Checkpoint {
  if (!text.endsWith('\n')) throw new MalformedCheckpointError('the text does not end in a newline');
  const lines = text.slice(0, -1).split('\n');
  const [origin, size_text, root_base64, ...extensions] = lines;
  if (origin === undefined || size_text === undefined || root_base64 === undefined)
    throw new MalformedCheckpointError('fewer than three lines');
  if (origin === '') throw new MalformedCheckpointError('empty origin');
  if (!/^(0|[1-9][0-9]*)$/.test(size_text)) throw new MalformedCheckpointError('the size is not a decimal number');
  const size = Number(size_text);
  if (!Number.isSafeInteger(size)) throw new MalformedCheckpointError('the size is beyond 2^53 - 1');
  let root_hash: Uint8Array;
  try {
    root_hash = fromBase64(root_base64);
  } catch {
    throw new MalformedCheckpointError('the root hash is not base64');
  }
  if (root_hash.length !== HASH_BYTES) throw new MalformedCheckpointError('the root hash is not 32 bytes');
  if (extensions.some((line) => line === '')) throw new MalformedCheckpointError('an empty extension line');
  return { origin, size, root_hash, extensions };
}
