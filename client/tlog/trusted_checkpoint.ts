import * as ed from '@noble/ed25519';
import { fromBase64 } from './base64.js';
import { HASH_BYTES, type Hash } from './hasher.js';
import { keyId, openNote, type NoteVerifier } from './note.js';

/** A checkpoint whose signature by the log's key has been checked. */
export interface OpenedCheckpoint {
  origin: string;
  size: number;
  root: Hash;
  /** The signed note as received, cosignatures included. */
  note: string;
}

export type CheckpointCheck = { ok: true; checkpoint: OpenedCheckpoint } | { ok: false; reason: string };

const ED25519_TYPE = 0x01;

/** A note verifier from a vkey, `<name>+<hex key id>+<base64(0x01 || ed25519 public key)>`; throws on a malformed one. */
export function vkeyVerifier(vkey: string): NoteVerifier {
  const parts = vkey.trim().split('+');
  if (parts.length !== 3 || !/^[0-9a-f]{8}$/.test(parts[1]!)) throw new Error('not a vkey (name+keyid+key)');
  const [name, id_hex, key_b64] = parts as [string, string, string];
  const key = fromBase64(key_b64);
  if (key.length !== 33 || key[0] !== ED25519_TYPE) throw new Error('the vkey is not an ed25519 key');
  const public_key = key.subarray(1);
  const key_id = keyId(name, ED25519_TYPE, public_key);
  if (key_id !== Number.parseInt(id_hex, 16)) throw new Error("the vkey's key id does not match its key");
  return {
    name,
    key_id,
    verify: (text, signature) => ed.verifyAsync(signature, text, public_key).catch(() => false),
  };
}

/**
 * The checkpoint in a signed note, if the log's key (the vkey) signed it: C2SP
 * tlog-checkpoint, the origin (which must be the key's name), the tree size in
 * decimal and the root in base64, each on its own line, then any extension lines.
 */
export async function openCheckpoint(note: string, vkey: string): Promise<CheckpointCheck> {
  let verifier: NoteVerifier;
  try {
    verifier = vkeyVerifier(vkey);
  } catch (error) {
    return { ok: false, reason: `the log key: ${(error as Error).message}` };
  }
  let text: string;
  try {
    text = (await openNote(note, [verifier])).text;
  } catch (error) {
    return { ok: false, reason: `the checkpoint's signature does not verify against the log key: ${(error as Error).message}` };
  }
  const [origin, size_text, root_text] = text.split('\n');
  if (origin !== verifier.name)
    return { ok: false, reason: `the checkpoint's origin ${JSON.stringify(origin)} is not the log key's name` };
  if (!/^(0|[1-9]\d*)$/.test(size_text ?? '') || !Number.isSafeInteger(Number(size_text)))
    return { ok: false, reason: 'the checkpoint has no tree size' };
  let root: Hash;
  try {
    root = fromBase64(root_text ?? '');
  } catch {
    return { ok: false, reason: 'the checkpoint has no base64 root hash' };
  }
  if (root.length !== HASH_BYTES) return { ok: false, reason: 'the checkpoint has no base64 root hash' };
  return { ok: true, checkpoint: { origin, size: Number(size_text), root, note } };
}
