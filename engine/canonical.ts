import { createHash } from 'node:crypto';
import canonicalizeJson from 'canonicalize';

/**
 * RFC 8785 (JCS) serialisation. Everything that is hashed or signed goes through
 * here, so one library decides key order, number form and string escapes.
 *
 * Fast path: when every object's keys already enumerate in sorted (UTF-16) order,
 * JSON.stringify writes exactly the JCS text (its number form and string escapes are
 * the ones RFC 8785 prescribes), natively. The engine builds its event data that way;
 * anything else, such as a body as a client sent it, goes through the library.
 */
export function canonicalJson(value: unknown): string {
  if (isSortedDeep(value)) {
    const text = JSON.stringify(value);
    if (text !== undefined) return text;
  }
  const text = canonicalizeJson(value);
  if (text === undefined) throw new Error('value has no JSON form');
  return text;
}

/** True if every object in the value enumerates its keys in ascending UTF-16 order and holds only plain JSON. */
function isSortedDeep(value: unknown): boolean {
  if (value === null) return true;
  switch (typeof value) {
    case 'string':
      return !LONE_SURROGATE.test(value);
    case 'number':
      return Number.isFinite(value);
    case 'boolean':
      return true;
    case 'object':
      break;
    default:
      return false;
  }
  if (Array.isArray(value)) {
    for (const item of value) if (!isSortedDeep(item)) return false;
    return true;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return false;
  let previous: string | undefined;
  for (const key in value) {
    if (previous !== undefined && !(previous < key)) return false;
    if (LONE_SURROGATE.test(key) || !isSortedDeep((value as Record<string, unknown>)[key])) return false;
    previous = key;
  }
  return true;
}

/** A string holding one of these has no canonical form; the library path refuses it. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

export function sha256Hex(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex');
}
