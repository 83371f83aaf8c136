import { hash } from 'node:crypto';
import canonicalizeJson from 'canonicalize';

/**
 * RFC 8785 (JCS) serialisation. Everything that is hashed or signed goes through
 * here, so one library decides key order, number form and string escapes.
 *
 * Fast path: for plain JSON (finite numbers, well-formed strings, plain objects),
 * JSON.stringify writes exactly the JCS text once every object's keys enumerate in
 * sorted (UTF-16) order: its number form and string escapes are the ones RFC 8785
 * prescribes. The engine builds its event data sorted, so that is written as is; a
 * body as a client sent it is copied with its keys sorted first (faster
 * than the library). Anything else goes through the library, which decides.
 */
export function canonicalJson(value: unknown): string {
  if (isSortedDeep(value)) {
    const text = JSON.stringify(value);
    if (text !== undefined) return text;
  }
  const sorted = sortedCopy(value);
  if (sorted !== NOT_PLAIN) return JSON.stringify(sorted);
  const text = canonicalizeJson(value);
  if (text === undefined) throw new Error('value has no JSON form');
  return text;
}

const NOT_PLAIN = Symbol('not plain JSON');
const INTEGER_LIKE = /^\d+$/;

/** A copy with every object's keys inserted in ascending UTF-16 order, or NOT_PLAIN for anything but plain JSON. */
function sortedCopy(value: unknown): unknown {
  if (value === null || typeof value === 'boolean') return value;
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? NOT_PLAIN : value;
  if (typeof value === 'number') return Number.isFinite(value) ? value : NOT_PLAIN;
  if (typeof value !== 'object') return NOT_PLAIN;
  if (Array.isArray(value)) {
    const items: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) if ((items[i] = sortedCopy(value[i])) === NOT_PLAIN) return NOT_PLAIN;
    return items;
  }
  if (Object.getPrototypeOf(value) !== Object.prototype) return NOT_PLAIN;
  // Default sort compares UTF-16 code units, the order RFC 8785 section 3.2.3 asks for.
  const keys = Object.keys(value).sort();
  // No prototype: a "__proto__" key from parsed JSON must stay an own key, not set the prototype.
  const copy: Record<string, unknown> = Object.create(null);
  for (const key of keys) {
    // Integer-like keys enumerate first in numeric order whatever the insertion order; leave those to the library.
    if (LONE_SURROGATE.test(key) || INTEGER_LIKE.test(key)) return NOT_PLAIN;
    const inner = sortedCopy((value as Record<string, unknown>)[key]);
    if (inner === NOT_PLAIN) return NOT_PLAIN;
    copy[key] = inner;
  }
  return copy;
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

/** One-shot hashing: no Hash object per call, a third cheaper for the short inputs hashed on every act. */
export function sha256Hex(data: string | Uint8Array): string {
  return hash('sha256', data, 'hex');
}
