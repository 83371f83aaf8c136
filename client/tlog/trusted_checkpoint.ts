import { parseCheckpoint } from './checkpoint.js';
import { openNote } from './note.js';
import { noteVerifier, parseVerifierKey, SIGNATURE_TYPE_ED25519, type VerifierKey } from './note_keys.js';
import type { Hash } from './hasher.js';

/** A checkpoint whose signature by the log's key has been checked. */
export interface OpenedCheckpoint {
  origin: string;
  size: number;
  root: Hash;
  /** The signed note as received, cosignatures included. */
  note: string;
}

export type CheckpointCheck = { ok: true; checkpoint: OpenedCheckpoint } | { ok: false; reason: string };

/**
 * The checkpoint in a signed note, if the log's key (the vkey) signed it. Its origin
 * must be the key's name: a log's key names the log, so a checkpoint of one log cannot
 * pass for another's signed by the same key material.
 */
export async function openCheckpoint(note: string, vkey: string): Promise<CheckpointCheck> {
  let key: VerifierKey;
  try {
    key = parseVerifierKey(vkey.trim());
  } catch (error) {
    return { ok: false, reason: `the log key is not usable: ${(error as Error).message}` };
  }
  if (key.type !== SIGNATURE_TYPE_ED25519)
    return { ok: false, reason: 'the log key is not an Ed25519 (0x01) note key' };
  let text: string;
  try {
    text = (await openNote(note, [noteVerifier(key)])).text;
  } catch (error) {
    return {
      ok: false,
      reason: `the checkpoint's signature does not verify against the log key ${vkey.trim()}: ${(error as Error).message}`,
    };
  }
  try {
    const { origin, size, root_hash } = parseCheckpoint(text);
    if (origin !== key.name)
      return { ok: false, reason: `the checkpoint's origin ${JSON.stringify(origin)} is not the log key's name` };
    return { ok: true, checkpoint: { origin, size, root: root_hash, note } };
  } catch (error) {
    return { ok: false, reason: (error as Error).message };
  }
}
