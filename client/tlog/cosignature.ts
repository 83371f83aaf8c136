import * as ed from '@noble/ed25519';
import { keyId, type NoteSignature, type NoteSigner, type NoteVerifier } from './note.js';
import { verifyEd25519 } from './ed25519.js';

/**
 * Ed25519 checkpoint cosignatures, C2SP tlog-cosignature (https://c2sp.org/tlog-cosignature),
 * signature type 0x04: a witness's statement that, as of a time, the checkpoint is the
 * largest consistent tree it has seen of that log. The signature on the note line is
 * the 8-byte big-endian timestamp followed by an Ed25519 signature over
 * "cosignature/v1\ntime <seconds>\n" || the checkpoint text.
 */

export const SIGNATURE_TYPE_COSIGNATURE_V1 = 0x04;

const TIMESTAMP_BYTES = 8;
const ED25519_SIGNATURE_BYTES = 64;
/** The spec caps timestamps at 2^63 - 1; a JavaScript number is exact only below 2^53, which is far enough. */
const MAX_TIMESTAMP_SECONDS = Number.MAX_SAFE_INTEGER;

export function cosignatureKeyId(name: string, public_key: Uint8Array): number {
  return keyId(name, SIGNATURE_TYPE_COSIGNATURE_V1, public_key);
}

/** The bytes a cosigner signs: the header line, the time line, then the whole checkpoint text. */
export function cosignedMessage(checkpoint_text: Uint8Array, timestamp_seconds: number): Uint8Array {
  const header = new TextEncoder().encode(`cosignature/v1\ntime ${timestamp_seconds}\n`);
  const message = new Uint8Array(header.length + checkpoint_text.length);
  message.set(header);
  message.set(checkpoint_text, header.length);
  return message;
}

export function cosignatureVerifier(name: string, public_key: Uint8Array): NoteVerifier {
  return {
    name,
    key_id: cosignatureKeyId(name, public_key),
    async verify(text, signature) {
      const timestamp_seconds = timestampOf(signature);
      if (timestamp_seconds === undefined) return false;
      return verifyEd25519(public_key, cosignedMessage(text, timestamp_seconds), signature.subarray(TIMESTAMP_BYTES));
    },
  };
}

/** A cosigner stamping each signature with `clock()`, POSIX seconds (never 0: the witness protocol forbids it). */
export function cosigner(
  name: string,
  seed: Uint8Array,
  public_key: Uint8Array,
  clock: () => number = () => Math.floor(Date.now() / 1000),
): NoteSigner {
  return {
    name,
    key_id: cosignatureKeyId(name, public_key),
    async sign(text) {
      const timestamp_seconds = clock();
      if (!Number.isSafeInteger(timestamp_seconds) || timestamp_seconds <= 0)
        throw new Error(`cosignature timestamp ${timestamp_seconds} is not a positive whole number of seconds`);
      const signature = await ed.signAsync(cosignedMessage(text, timestamp_seconds), seed);
      const bytes = new Uint8Array(TIMESTAMP_BYTES + ED25519_SIGNATURE_BYTES);
      new DataView(bytes.buffer).setBigUint64(0, BigInt(timestamp_seconds));
      bytes.set(signature, TIMESTAMP_BYTES);
      return bytes;
    },
  };
}

/** The time a cosignature line claims (unverified), or undefined when it is not a cosignature/v1 signature. */
export function cosignatureTimestamp(signature: NoteSignature): number | undefined {
  return timestampOf(signature.signature);
}

function timestampOf(signature: Uint8Array): number | undefined {
  if (signature.length !== TIMESTAMP_BYTES + ED25519_SIGNATURE_BYTES) return undefined;
  const timestamp = new DataView(signature.buffer, signature.byteOffset).getBigUint64(0);
  return timestamp <= BigInt(MAX_TIMESTAMP_SECONDS) ? Number(timestamp) : undefined;
}
