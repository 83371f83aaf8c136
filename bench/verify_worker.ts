import { createPublicKey, verify, type KeyObject } from 'node:crypto';

/** A batch of signature checks, as a verification pool on a machine with cores to spare would take them. */
export interface VerifyBatch {
  /** Raw 32-byte public keys, one per check (the same few keys recur, as members do). */
  pubkeys: Uint8Array[];
  messages: Uint8Array[];
  signatures: Uint8Array[];
}

const keys = new Map<string, KeyObject>();

function keyObject(raw: Uint8Array): KeyObject {
  const x = Buffer.from(raw).toString('base64url');
  let key = keys.get(x);
  if (!key) keys.set(x, (key = createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' })));
  return key;
}

/** Piscina worker (bench/cores.ts): how many signatures of the batch verify; each thread keeps its own key cache. */
export default function verifyBatch(batch: VerifyBatch): number {
  let valid = 0;
  for (let i = 0; i < batch.messages.length; i++)
    if (verify(null, batch.messages[i]!, keyObject(batch.pubkeys[i]!), batch.signatures[i]!)) valid++;
  return valid;
}
