import { Point } from '@noble/ed25519';

/** The order of edwards25519's prime-order subgroup (RFC 8032's L) and the field prime p. */
export const L = 2n ** 252n + 27742317777372353535851937790883648493n;
export const P = 2n ** 255n - 19n;

export const toBase64url = (bytes: Uint8Array): string => Buffer.from(bytes).toString('base64url');

export function littleEndian(value: bigint, length = 32): Uint8Array {
  const bytes = new Uint8Array(length);
  for (let i = 0; i < length; i++, value >>= 8n) bytes[i] = Number(value & 0xffn);
  return bytes;
}

export function fromLittleEndian(bytes: Uint8Array): bigint {
  let value = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) value = (value << 8n) | BigInt(bytes[i]!);
  return value;
}

/**
 * The eight points of small order, computed rather than copied: [L]Q keeps only the
 * torsion part of a point Q, and the torsion group is cyclic of order 8, so the
 * multiples of one point of order 8 are all of it.
 */
export function torsionPoints(): Point[] {
  for (let y = 2n; ; y++) {
    let q: Point;
    try {
      q = Point.fromBytes(littleEndian(y), true);
    } catch {
      continue;
    }
    const torsion = q.multiply(L - 1n, false).add(q);
    if (torsion.double().double().is0()) continue;
    const points: Point[] = [];
    let multiple = Point.ZERO;
    for (let k = 0; k < 8; k++, multiple = multiple.add(torsion)) points.push(multiple);
    return points;
  }
}

/** The canonical encodings of the eight small-order points. */
export function smallOrderKeys(): string[] {
  return torsionPoints().map((point) => toBase64url(point.toBytes()));
}

/**
 * The other encodings that lenient (ZIP-215, OpenSSL) decoders accept for the same
 * points: y + p where that still fits in 255 bits, and the sign bit set where x = 0.
 */
export function nonCanonicalSmallOrderKeys(): string[] {
  const spellings: string[] = [];
  for (const point of torsionPoints()) {
    const bytes = point.toBytes();
    const sign = bytes[31]! & 0x80;
    const y = fromLittleEndian(bytes) & ((1n << 255n) - 1n);
    const variants: Uint8Array[] = [];
    if (point.x === 0n) variants.push(withSignFlipped(bytes));
    if (y + P < 2n ** 255n) {
      const high = littleEndian(y + P);
      high[31]! |= sign;
      variants.push(high);
      if (point.x === 0n) variants.push(withSignFlipped(high));
    }
    spellings.push(...variants.map(toBase64url));
  }
  return spellings;
}

function withSignFlipped(bytes: Uint8Array): Uint8Array {
  const copy = Uint8Array.from(bytes);
  copy[31]! ^= 0x80;
  return copy;
}

/** A prime-order point plus a point of order 8: a key whose signatures can be ground to verify. */
export function mixedOrderKey(prime_order_key: Uint8Array): string {
  return toBase64url(Point.fromBytes(prime_order_key, false).add(torsionPoints()[1]!).toBytes());
}

/** Sets unused low bits of the last base64url character: the same bytes, another string. */
export function withUnusedBitsSet(text: string): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
  return text.slice(0, -1) + alphabet[alphabet.indexOf(text.at(-1)!) + 1];
}
