import { sha256 } from '@noble/hashes/sha2.js';
import { fromBase64, toBase64 } from './base64.js';

/**
 * Signed notes, C2SP signed-note v1.0.0 (https://c2sp.org/signed-note): a text ending
 * in a newline, a blank line, then one or more lines "— <key name> <base64(key id ||
 * signature)>". Parsing follows golang.org/x/mod/sumdb/note, the reference
 * implementation: valid UTF-8, no control character but the newline, the text split
 * from the signatures at the last blank line, at most 100 signature lines, signatures
 * of unknown keys kept aside and never trusted.
 */

/** Go's note package refuses more than this; the spec asks verifiers to accept at least 16. */
export const MAX_NOTE_SIGNATURES = 100;

const SIGNATURE_PREFIX = '\u2014 ';
const KEY_ID_BYTES = 4;

/** The note breaks the format: the whole note is refused, whatever its signatures. */
export class MalformedNoteError extends Error {
  constructor(reason: string) {
    super(`malformed note: ${reason}`);
  }
}

/** No signature of a trusted key is on the note (signatures of unknown keys never count). */
export class UnverifiedNoteError extends Error {}

/** A signature names a trusted key (name and key id) but does not verify: the note is refused. */
export class InvalidSignatureError extends Error {}

export interface NoteSignature {
  name: string;
  /** The first four bytes of the decoded signature, big-endian. */
  key_id: number;
  /** The signature proper, after the key id. */
  signature: Uint8Array;
  /** The base64 of key id || signature, as on the line. */
  base64: string;
}

/** A trusted key: the (name, key id) pair it answers to and its check of a signature over the note text. */
export interface NoteVerifier {
  readonly name: string;
  readonly key_id: number;
  verify(text: Uint8Array, signature: Uint8Array): Promise<boolean>;
}

export interface NoteSigner {
  readonly name: string;
  readonly key_id: number;
  sign(text: Uint8Array): Promise<Uint8Array>;
}

export interface ParsedNote {
  /** The note text, final newline included, blank separator line excluded. */
  text: string;
  signatures: NoteSignature[];
}

export interface OpenedNote {
  text: string;
  /** Verified signatures of trusted keys, in note order, each key once. */
  verified: NoteSignature[];
  /** Signatures of keys the caller does not know, identical lines once. */
  unverified: NoteSignature[];
}

/** SHA-256(name || "\n" || type || public key)[:4], big-endian: the key id signed-note recommends and cosignatures require. */
export function keyId(name: string, signature_type: number, public_key: Uint8Array): number {
  const name_bytes = new TextEncoder().encode(name);
  const input = new Uint8Array(name_bytes.length + 2 + public_key.length);
  input.set(name_bytes);
  input[name_bytes.length] = 0x0a;
  input[name_bytes.length + 1] = signature_type;
  input.set(public_key, name_bytes.length + 2);
  return new DataView(sha256(input).buffer).getUint32(0);
}

export function keyIdHex(key_id: number): string {
  return key_id.toString(16).padStart(8, '0');
}

// Unicode White_Space, as Go's unicode.IsSpace tests it (JavaScript's \s differs: it has U+FEFF, lacks U+0085).
const UNICODE_SPACE = /[\t-\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/;

/** A key name is non-empty, with no Unicode space and no "+" (the separator of vkeys). */
export function isValidKeyName(name: string): boolean {
  return name.length > 0 && isWellFormed(name) && !UNICODE_SPACE.test(name) && !name.includes('+');
}

/** Parses the note's structure without verifying anything. Throws MalformedNoteError. */
export function parseNote(note: string | Uint8Array): ParsedNote {
  const message = typeof note === 'string' ? note : decodeUtf8(note);
  if (!isWellFormed(message)) throw new MalformedNoteError('not valid UTF-8');
  if (/[\x00-\x09\x0b-\x1f]/.test(message)) throw new MalformedNoteError('a control character other than newline');
  const split = message.lastIndexOf('\n\n');
  if (split < 0) throw new MalformedNoteError('no blank line before the signatures');
  const text = message.slice(0, split + 1);
  const block = message.slice(split + 2);
  if (block.length === 0 || !block.endsWith('\n')) throw new MalformedNoteError('no signature line ending in newline');
  const lines = block.slice(0, -1).split('\n');
  if (lines.length > MAX_NOTE_SIGNATURES) throw new MalformedNoteError(`more than ${MAX_NOTE_SIGNATURES} signatures`);
  return { text, signatures: lines.map(parseSignatureLine) };
}

/** One signature line without its newline: "— <name> <base64>". Throws MalformedNoteError. */
export function parseSignatureLine(line: string): NoteSignature {
  if (!line.startsWith(SIGNATURE_PREFIX)) throw new MalformedNoteError('a signature line not starting with "— "');
  const rest = line.slice(SIGNATURE_PREFIX.length);
  const space = rest.indexOf(' ');
  const name = space < 0 ? rest : rest.slice(0, space);
  const base64 = space < 0 ? '' : rest.slice(space + 1);
  if (!isValidKeyName(name)) throw new MalformedNoteError(`invalid key name ${JSON.stringify(name)}`);
  let bytes: Uint8Array;
  try {
    bytes = fromBase64(base64);
  } catch {
    throw new MalformedNoteError(`the signature of ${name} is not base64`);
  }
  if (bytes.length <= KEY_ID_BYTES) throw new MalformedNoteError(`the signature of ${name} is too short`);
  const key_id = new DataView(bytes.buffer, bytes.byteOffset).getUint32(0);
  return { name, key_id, signature: bytes.slice(KEY_ID_BYTES), base64 };
}

export function formatSignatureLine(name: string, key_id: number, signature: Uint8Array): string {
  const bytes = new Uint8Array(KEY_ID_BYTES + signature.length);
  new DataView(bytes.buffer).setUint32(0, key_id);
  bytes.set(signature, KEY_ID_BYTES);
  return `${SIGNATURE_PREFIX}${name} ${toBase64(bytes)}\n`;
}

/**
 * Parses the note and verifies every signature of a trusted key. Throws
 * MalformedNoteError, InvalidSignatureError (a trusted key's signature fails: the
 * note is refused, as the spec recommends) or UnverifiedNoteError (no trusted
 * signature at all).
 */
export async function openNote(note: string | Uint8Array, verifiers: readonly NoteVerifier[]): Promise<OpenedNote> {
  const { text, signatures } = parseNote(note);
  const text_bytes = new TextEncoder().encode(text);
  const verified: NoteSignature[] = [];
  const unverified: NoteSignature[] = [];
  const seen = new Set<string>();
  for (const signature of signatures) {
    const id = `${signature.name}+${keyIdHex(signature.key_id)}`;
    const matching = verifiers.filter((v) => v.name === signature.name && v.key_id === signature.key_id);
    if (matching.length > 1) throw new Error(`ambiguous key ${id}: two trusted keys share its name and key id`);
    const verifier = matching[0];
    if (!verifier) {
      if (!unverified.some((u) => u.name === signature.name && u.base64 === signature.base64))
        unverified.push(signature);
      continue;
    }
    if (seen.has(id)) continue;
    seen.add(id);
    if (!(await verifier.verify(text_bytes, signature.signature)))
      throw new InvalidSignatureError(`invalid signature for key ${id}`);
    verified.push(signature);
  }
  if (verified.length === 0) throw new UnverifiedNoteError('note has no verifiable signatures');
  return { text, verified, unverified };
}

/** The text signed by each signer, in order, as a note. Throws MalformedNoteError on a text a note cannot carry. */
export async function signNote(text: string, signers: readonly NoteSigner[]): Promise<string> {
  checkNoteText(text);
  const text_bytes = new TextEncoder().encode(text);
  let note = `${text}\n`;
  for (const signer of signers) {
    if (!isValidKeyName(signer.name)) throw new Error(`invalid signer name ${JSON.stringify(signer.name)}`);
    note += formatSignatureLine(signer.name, signer.key_id, await signer.sign(text_bytes));
  }
  return note;
}

/** A note text is non-empty UTF-8 ending in a newline, with no control character but the newline. */
export function checkNoteText(text: string): void {
  if (!text.endsWith('\n')) throw new MalformedNoteError('the text does not end in a newline');
  if (!isWellFormed(text)) throw new MalformedNoteError('the text is not valid UTF-8');
  if (/[\x00-\x09\x0b-\x1f]/.test(text)) throw new MalformedNoteError('a control character other than newline');
}

// A lone surrogate has no UTF-8 encoding (TextEncoder would silently write U+FFFD).
function isWellFormed(text: string): boolean {
  return !/\p{Surrogate}/u.test(text);
}

function decodeUtf8(bytes: Uint8Array): string {
  try {
    // ignoreBOM keeps a leading U+FEFF as text: the default would silently drop it from what is verified.
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw new MalformedNoteError('not valid UTF-8');
  }
}
