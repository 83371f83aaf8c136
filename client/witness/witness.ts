import { createHash } from 'node:crypto';
import { fromBase64, toBase64 } from '../tlog/base64.js';
import { MalformedCheckpointError, parseCheckpoint } from '../tlog/checkpoint.js';
import { hashesEqual, nobleHasher } from '../tlog/hasher.js';
import { verifyConsistency } from '../tlog/merkle.js';
import {
  formatSignatureLine,
  InvalidSignatureError,
  MalformedNoteError,
  openNote,
  parseNote,
  UnverifiedNoteError,
  type NoteSigner,
  type NoteVerifier,
} from '../tlog/note.js';
import { noteVerifier, type VerifierKey } from '../tlog/note_keys.js';
import { MalformedRequestError, parseAddCheckpoint, TREE_SIZE_CONTENT_TYPE } from '../tlog/witness_protocol.js';
import type { WitnessStateFile } from './state_file.js';

export interface WitnessAnswer {
  status: number;
  content_type: string;
  body: string;
}

/**
 * Why a checkpoint was refused, for the witness's own log: a 422, or a 409 for the held size
 * with another root, from a correctly signed checkpoint is evidence of a log's misbehaviour.
 */
export type RefusalListener = (refusal: { status: number; origin?: string; reason: string }) => void;

const TEXT = 'text/plain; charset=utf-8';

/** tlog-witness's 409: the size the witness holds for the log, in decimal and a newline. */
function heldSizeAnswer(held_size: number): WitnessAnswer {
  return { status: 409, content_type: TREE_SIZE_CONTENT_TYPE, body: `${held_size}\n` };
}

/**
 * The witness of C2SP tlog-witness: it cosigns a log's checkpoint only if it extends
 * the last one it cosigned for that log, so two readers shown different histories by
 * one log cannot both hold its cosignature. The checks and status codes are the
 * spec's, in its order; the check against the held checkpoint and the durable update
 * run under one lock, so two requests can never roll a log back.
 */
export class Witness {
  private readonly verifiers = new Map<string, NoteVerifier[]>();
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly cosigner: NoteSigner,
    logs: readonly VerifierKey[],
    private readonly state: WitnessStateFile,
    private readonly on_refusal: RefusalListener = () => {},
  ) {
    for (const log of logs) this.verifiers.set(log.name, [...(this.verifiers.get(log.name) ?? []), noteVerifier(log)]);
  }

  async addCheckpoint(body: Uint8Array): Promise<WitnessAnswer> {
    let text: string;
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(body);
    } catch {
      return this.refuse(400, 'the body is not UTF-8');
    }
    let request;
    let checkpoint;
    try {
      request = parseAddCheckpoint(text);
      checkpoint = parseCheckpoint(parseNote(request.checkpoint_note).text);
    } catch (error) {
      if (error instanceof MalformedRequestError || error instanceof MalformedNoteError)
        return this.refuse(400, error.message);
      if (error instanceof MalformedCheckpointError) return this.refuse(400, error.message);
      throw error;
    }
    const { origin } = checkpoint;
    const verifiers = this.verifiers.get(origin);
    if (!verifiers) return this.refuse(404, `unknown log origin ${JSON.stringify(origin)}`, origin);
    let opened;
    try {
      opened = await openNote(request.checkpoint_note, verifiers);
    } catch (error) {
      if (error instanceof UnverifiedNoteError || error instanceof InvalidSignatureError)
        return this.refuse(403, `${error.message} of the log`, origin);
      throw error;
    }
    if (request.old_size > checkpoint.size)
      return this.refuse(
        400,
        `old size ${request.old_size} is larger than the checkpoint's ${checkpoint.size}`,
        origin,
      );
    const { old_size, proof } = request;
    return this.serialised(async () => {
      const held = this.state.get(origin);
      const held_size = held?.size ?? 0;
      if (old_size !== held_size) {
        this.on_refusal({ status: 409, origin, reason: `old size ${old_size}, held ${held_size}` });
        return heldSizeAnswer(held_size);
      }
      const held_root = held ? fromBase64(held.root_hash) : nobleHasher.empty();
      // The spec's 409 for the held size with another root (size 0 included: its root is the empty tree's).
      // Its body is the held size, as in every 409: a sender reading "the size I sent" knows it is a fork.
      if (old_size === checkpoint.size && !hashesEqual(held_root, checkpoint.root_hash)) {
        this.on_refusal({
          status: 409,
          origin,
          reason: `size ${old_size} with a root other than the one cosigned: a fork`,
        });
        return heldSizeAnswer(held_size);
      }
      if (old_size === 0 && proof.length > 0)
        return this.refuse(422, 'from old size 0 the consistency proof must be empty', origin);
      if (
        old_size > 0 &&
        !verifyConsistency(nobleHasher, old_size, checkpoint.size, held_root, checkpoint.root_hash, proof)
      )
        return this.refuse(422, `the consistency proof from ${old_size} to ${checkpoint.size} does not verify`, origin);
      const cosignature = formatSignatureLine(
        this.cosigner.name,
        this.cosigner.key_id,
        await this.cosigner.sign(new TextEncoder().encode(opened.text)),
      );
      const log_lines = opened.verified.map((s) => formatSignatureLine(s.name, s.key_id, s.signature)).join('');
      await this.state.put(origin, {
        size: checkpoint.size,
        root_hash: toBase64(checkpoint.root_hash),
        note: `${opened.text}\n${log_lines}${cosignature}`,
      });
      return { status: 200, content_type: TEXT, body: cosignature };
    });
  }

  /** The monitoring read of tlog-witness: the last cosigned checkpoint of the log whose origin hashes (SHA-256, hex) to this. */
  cosignedCheckpoint(origin_sha256_hex: string): string | undefined {
    for (const origin of this.verifiers.keys())
      if (createHash('sha256').update(origin).digest('hex') === origin_sha256_hex) return this.state.get(origin)?.note;
    return undefined;
  }

  // One state file holds every log: all updates take turns, which serialises each log's as the spec requires.
  private serialised<T>(task: () => Promise<T>): Promise<T> {
    const result = this.queue.then(task);
    this.queue = result.catch(() => {});
    return result;
  }

  private refuse(status: number, reason: string, origin?: string): WitnessAnswer {
    this.on_refusal({ status, ...(origin === undefined ? {} : { origin }), reason });
    return { status, content_type: TEXT, body: `${reason}\n` };
  }
}
