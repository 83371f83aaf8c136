import { createHash } from 'node:crypto';
import canonicalizeJson from 'canonicalize';

/**
 * RFC 8785 (JCS) serialisation. Everything that is hashed or signed goes through
 * here, so one library decides key order, number form and string escapes.
 */
export function canonicalJson(value: unknown): string {
  const text = canonicalizeJson(value);
  if (text === undefined) throw new Error('value has no JSON form');
  return text;
}

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
