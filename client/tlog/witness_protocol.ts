import { fromBase64, toBase64 } from './base64.js';
import { HASH_BYTES, type Hash } from './hasher.js';

/**
 * The body of C2SP tlog-witness's `POST <prefix>/add-checkpoint` (https://c2sp.org/tlog-witness):
 * "old <size>\n", at most 63 base64 consistency proof lines, an empty line, then the
 * signed checkpoint note. Shared by the witness that parses it and the log that sends it.
 */

export const MAX_PROOF_LINES = 63;

/** The Content-Type of a witness's 409 answer, whose body is the size it holds in decimal and a newline. */
export const TREE_SIZE_CONTENT_TYPE = 'text/x.tlog.size';

export interface AddCheckpointRequest {
  old_size: number;
  proof: Hash[];
  checkpoint_note: string;
}

export class MalformedRequestError extends Error {}

export function formatAddCheckpoint(request: AddCheckpointRequest): string {
  if (request.proof.length > MAX_PROOF_LINES) throw new Error(`more than ${MAX_PROOF_LINES} consistency proof hashes`);
  return `old ${request.old_size}\n${request.proof.map((hash) => `${toBase64(hash)}\n`).join('')}\n${request.checkpoint_note}`;
}

/** Parses the request body's framing (the note inside is parsed by its own rules). Throws MalformedRequestError. */
export function parseAddCheckpoint(body: string): AddCheckpointRequest {
  const first_end = body.indexOf('\n');
  const old_line = first_end < 0 ? body : body.slice(0, first_end);
  const old_match = /^old (0|[1-9][0-9]*)$/.exec(old_line);
  if (!old_match) throw new MalformedRequestError('the first line is not "old <size>" with no leading zero');
  const old_size = Number(old_match[1]);
  if (!Number.isSafeInteger(old_size)) throw new MalformedRequestError('the old size is beyond 2^53 - 1');
  const proof: Hash[] = [];
  let at = first_end + 1;
  for (;;) {
    const end = body.indexOf('\n', at);
    if (end < 0) throw new MalformedRequestError('no empty line before the checkpoint');
    const line = body.slice(at, end);
    at = end + 1;
    if (line === '') break;
    if (proof.length === MAX_PROOF_LINES)
      throw new MalformedRequestError(`more than ${MAX_PROOF_LINES} consistency proof lines`);
    proof.push(decodeHash(line));
  }
  return { old_size, proof, checkpoint_note: body.slice(at) };
}

function decodeHash(line: string): Hash {
  let hash: Uint8Array;
  try {
    hash = fromBase64(line);
  } catch {
    throw new MalformedRequestError('a consistency proof line is not base64');
  }
  if (hash.length !== HASH_BYTES) throw new MalformedRequestError('a consistency proof hash is not 32 bytes');
  return hash;
}
