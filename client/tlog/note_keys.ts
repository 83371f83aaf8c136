import * as ed from '@noble/ed25519';
import { fromBase64, toBase64 } from './base64.js';
import { cosigner, cosignatureVerifier, SIGNATURE_TYPE_COSIGNATURE_V1 } from './cosignature.js';
import { verifyEd25519 } from './ed25519.js';
import { isValidKeyName, keyId, keyIdHex, type NoteSigner, type NoteVerifier } from './note.js';

/**
 * Key texts of signed notes. A verifier key ("vkey") is
 * `<name>+<hex key id>+<base64(type || public key)>`; a signer key, in Go's
 * golang.org/x/mod/sumdb/note form, is `PRIVATE+KEY+<name>+<hex key id>+<base64(type || seed)>`.
 * Two types are understood, both Ed25519: 0x01, a plain note signature (what a log
 * signs its checkpoints with), and 0x04, a cosignature/v1 (what a witness signs with).
 */

export const SIGNATURE_TYPE_ED25519 = 0x01;

export type KeyType = typeof SIGNATURE_TYPE_ED25519 | typeof SIGNATURE_TYPE_COSIGNATURE_V1;

const ED25519_KEY_BYTES = 32;

export interface VerifierKey {
  name: string;
  key_id: number;
  type: KeyType;
  public_key: Uint8Array;
}

export interface SignerKey extends VerifierKey {
  /** The 32-byte Ed25519 seed. */
  seed: Uint8Array;
}

export function formatVerifierKey(key: Omit<VerifierKey, 'key_id'>): string {
  return `${key.name}+${keyIdHex(keyId(key.name, key.type, key.public_key))}+${toBase64(typed(key.type, key.public_key))}`;
}

/** Parses a vkey, checking its key id against its name and key. Throws on anything else. */
export function parseVerifierKey(vkey: string): VerifierKey {
  const [name = '', hex = '', key_base64 = ''] = cutPlus(vkey, 3);
  const { type, key } = typedKey(name, hex, key_base64, 'vkey');
  const key_id = keyId(name, type, key);
  if (keyIdHex(key_id) !== hex) throw new Error('vkey: the key id does not match the name and key');
  return { name, key_id, type, public_key: key };
}

export function formatSignerKey(key: SignerKey): string {
  return `PRIVATE+KEY+${key.name}+${keyIdHex(key.key_id)}+${toBase64(typed(key.type, key.seed))}`;
}

/** Parses a signer key; its key id must be the one its name and derived public key give. */
export async function parseSignerKey(skey: string): Promise<SignerKey> {
  const [private_word, key_word, name = '', hex = '', key_base64 = ''] = cutPlus(skey, 5);
  if (private_word !== 'PRIVATE' || key_word !== 'KEY')
    throw new Error('signer key: not PRIVATE+KEY+<name>+<key id>+<key>');
  const { type, key: seed } = typedKey(name, hex, key_base64, 'signer key');
  const public_key = await ed.getPublicKeyAsync(seed);
  const key_id = keyId(name, type, public_key);
  if (keyIdHex(key_id) !== hex) throw new Error('signer key: the key id does not match the name and key');
  return { name, key_id, type, public_key, seed };
}

export async function generateSignerKey(name: string, type: KeyType): Promise<SignerKey> {
  if (!isValidKeyName(name)) throw new Error(`key name ${JSON.stringify(name)} is empty or has a space or "+"`);
  const seed = ed.utils.randomSecretKey();
  const public_key = await ed.getPublicKeyAsync(seed);
  return { name, key_id: keyId(name, type, public_key), type, public_key, seed };
}

export function noteVerifier(key: VerifierKey): NoteVerifier {
  if (key.type === SIGNATURE_TYPE_COSIGNATURE_V1) return cosignatureVerifier(key.name, key.public_key);
  return {
    name: key.name,
    key_id: key.key_id,
    verify: (text, signature) => verifyEd25519(key.public_key, text, signature),
  };
}

/** A signer for the key's type; `clock` (POSIX seconds) stamps cosignatures. */
export function noteSigner(key: SignerKey, clock?: () => number): NoteSigner {
  if (key.type === SIGNATURE_TYPE_COSIGNATURE_V1) return cosigner(key.name, key.seed, key.public_key, clock);
  return { name: key.name, key_id: key.key_id, sign: (text) => ed.signAsync(text, key.seed) };
}

function typedKey(name: string, hex: string, key_base64: string, what: string): { type: KeyType; key: Uint8Array } {
  if (!isValidKeyName(name)) throw new Error(`${what}: invalid key name ${JSON.stringify(name)}`);
  if (!/^[0-9a-f]{8}$/.test(hex)) throw new Error(`${what}: the key id is not 8 lowercase hex digits`);
  let bytes: Uint8Array;
  try {
    bytes = fromBase64(key_base64);
  } catch {
    throw new Error(`${what}: the key is not base64`);
  }
  const type = bytes[0];
  if (type !== SIGNATURE_TYPE_ED25519 && type !== SIGNATURE_TYPE_COSIGNATURE_V1)
    throw new Error(`${what}: signature type ${type} is not 0x01 (Ed25519) or 0x04 (cosignature/v1)`);
  const key = bytes.slice(1);
  if (key.length !== ED25519_KEY_BYTES) throw new Error(`${what}: an Ed25519 key is 32 bytes`);
  return { type, key };
}

/** The first parts - 1 "+"-separated fields and the rest, which may hold "+" (a base64 character). */
function cutPlus(text: string, parts: number): string[] {
  const fields: string[] = [];
  let rest = text;
  for (let i = 1; i < parts; i++) {
    const plus = rest.indexOf('+');
    fields.push(plus < 0 ? rest : rest.slice(0, plus));
    rest = plus < 0 ? '' : rest.slice(plus + 1);
  }
  fields.push(rest);
  return fields;
}

function typed(type: number, key: Uint8Array): Uint8Array {
  const bytes = new Uint8Array(1 + key.length);
  bytes[0] = type;
  bytes.set(key, 1);
  return bytes;
}
