import { createHash, createPublicKey, generateKeyPairSync, sign, verify } from 'node:crypto';
import * as ed from '@noble/ed25519';
import { isPrimeOrderPoint } from '../engine/identity.js';
import { isPrimeOrderKey as portableIsPrimeOrderKey } from '../client/strict_ed25519.js';
import { opsPerSecond } from './measure.js';
import { freshPubkey } from './members.js';

/**
 * The server's verifier (node:crypto on a cached KeyObject) beside the pure-JS
 * @noble/ed25519 the client signs with, verifying the same signing strings.
 */
export async function benchSignatures(): Promise<{ node: number; noble: number }> {
  ed.hashes.sha512 = (message: Uint8Array) => createHash('sha512').update(message).digest();
  const { publicKey, privateKey } = generateKeyPairSync('ed25519');
  const raw_public = Buffer.from(publicKey.export({ format: 'jwk' }).x as string, 'base64url');
  const key_object = createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: raw_public.toString('base64url') },
    format: 'jwk',
  });
  const messages = Array.from({ length: 64 }, (_, i) =>
    Buffer.from(`society-sig-v1\nPOST\n/api/v1/act\nag_0123456789abcdef\nnonce${i}\n${'ab'.repeat(32)}`),
  );
  const signatures = messages.map((message) => sign(null, message, privateKey));
  let index = 0;
  const rates = await opsPerSecond(
    [
      {
        name: 'node',
        ops_per_call: 1,
        fn: () => {
          const i = index++ & 63;
          if (!verify(null, messages[i]!, key_object, signatures[i]!)) throw new Error('verify failed');
        },
      },
      {
        name: 'noble',
        ops_per_call: 1,
        fn: () => {
          const i = index++ & 63;
          if (!ed.verify(signatures[i]!, messages[i]!, raw_public)) throw new Error('verify failed');
        },
      },
    ],
    1000,
  );
  return { node: rates.node!, noble: rates.noble! };
}

/**
 * Judging a public key (canonical, prime order: docs/protocol.md#strong-keys-and-canonical-signatures), as the server
 * and the engine do it with libsodium, beside the same check in pure JavaScript (the
 * client verifier's, on @noble/ed25519). Every key is new to both: nothing cached.
 */
export async function benchKeyJudging(): Promise<{ sodium: number; noble: number }> {
  // More keys than the slower judge gets through in its time, so neither ever meets one twice.
  const keys = Array.from({ length: 8192 }, freshPubkey);
  const raw = keys.map((key) => Buffer.from(key, 'base64url'));
  let sodium_index = 0;
  let noble_index = 0;
  const rates = await opsPerSecond(
    [
      {
        name: 'sodium',
        ops_per_call: 1,
        fn: () => {
          if (!isPrimeOrderPoint(raw[sodium_index++ & 8191]!)) throw new Error('a fresh key judged weak');
        },
      },
      {
        name: 'noble',
        ops_per_call: 1,
        fn: () => {
          const key = keys[noble_index++];
          if (key === undefined) throw new Error('the key pool ran out: make it larger');
          if (!portableIsPrimeOrderKey(key)) throw new Error('a fresh key judged weak');
        },
      },
    ],
    1000,
  );
  return { sodium: rates.sodium!, noble: rates.noble! };
}
