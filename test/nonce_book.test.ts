import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { NonceBook } from '../api/nonces.js';

const A = 'ag_000000000000000a';
const B = 'ag_000000000000000b';

/** One character of a base64url string changed to another valid one. */
function flipped(nonce: string, index: number): string {
  const swapped = nonce[index] === 'A' ? 'B' : 'A';
  return nonce.slice(0, index) + swapped + nonce.slice(index + 1);
}

describe('the nonce book', () => {
  it('issues distinct 40-character nonces that hold no memory until spent', () => {
    const book = new NonceBook({ clock: () => 0 });
    const issued = Array.from({ length: 1000 }, () => book.issue(A).nonce);
    expect(new Set(issued).size).toBe(1000);
    for (const nonce of issued) expect(nonce).toMatch(/^[A-Za-z0-9_-]{40}$/);
    expect(book.spent_count).toBe(0);
    for (const nonce of issued) expect(book.isValid(nonce, A)).toBe(true);
  });

  it('never lets issuing, for one id or many, invalidate an outstanding nonce', () => {
    const book = new NonceBook({ clock: () => 0 });
    const mine = book.issue(A).nonce;
    for (let i = 0; i < 100_000; i++) book.issue(i % 2 ? A : `ag_${i.toString(16).padStart(16, '0')}`);
    expect(book.isValid(mine, A)).toBe(true);
    expect(book.spent_count).toBe(0);
  });

  it('binds a nonce to its id, its lifetime and this secret', () => {
    let now = 1_000;
    const secret = randomBytes(32);
    const book = new NonceBook({ clock: () => now, nonce_ttl_seconds: 300, secret });
    const { nonce, expires_at_ms } = book.issue(A);
    expect(expires_at_ms).toBe(301_000);
    expect(book.isValid(nonce, B)).toBe(false);
    expect(new NonceBook({ clock: () => now }).isValid(nonce, A)).toBe(false);
    expect(new NonceBook({ clock: () => now, secret }).isValid(nonce, A)).toBe(true);
    now = 300_999;
    expect(book.isValid(nonce, A)).toBe(true);
    now = 301_000;
    expect(book.isValid(nonce, A)).toBe(false);
  });

  it('refuses a nonce with any character changed, garbled, or of the wrong shape', () => {
    const book = new NonceBook({ clock: () => 0 });
    const nonce = book.issue(A).nonce;
    // Expiry (0-7), counter (8-15) and MAC (16-39): a change anywhere fails the MAC.
    for (let index = 0; index < nonce.length; index++)
      expect(book.isValid(flipped(nonce, index), A), `index ${index}`).toBe(false);
    expect(book.isValid(nonce.slice(0, 39), A)).toBe(false);
    expect(book.isValid(`${nonce}A`, A)).toBe(false);
    expect(book.isValid(`${nonce.slice(0, 39)}+`, A)).toBe(false);
    expect(book.isValid(`${nonce.slice(0, 38)}==`, A)).toBe(false);
    expect(book.isValid('A'.repeat(40), A)).toBe(false);
    expect(book.isValid('', A)).toBe(false);
  });

  it('refuses a forged expiry: pushing it later breaks the MAC', () => {
    const book = new NonceBook({ clock: () => 0 });
    const nonce = book.issue(A).nonce;
    const bytes = Buffer.from(nonce, 'base64url');
    bytes.writeUIntBE(bytes.readUIntBE(0, 6) + 3_600_000, 0, 6);
    expect(book.isValid(bytes.toString('base64url'), A)).toBe(false);
  });

  it('spends each nonce once, remembers spent ones until they expire, then forgets them', () => {
    let now = 0;
    const book = new NonceBook({ clock: () => now });
    const nonce = book.issue(A).nonce;
    expect(book.isValid(nonce, A)).toBe(true);
    expect(book.spend(nonce)).toEqual({ nonce, expires_at_ms: 300_000 });
    expect(book.isValid(nonce, A)).toBe(false);
    expect(() => book.spend(nonce)).toThrow();
    expect(book.spent_count).toBe(1);
    now = 299_000;
    expect(book.isValid(book.issue(A).nonce, A)).toBe(true);
    expect(book.spent_count).toBe(1);
    now = 300_000;
    expect(book.isValid(nonce, A)).toBe(false);
    // Kept by the second: once the whole second of its expiry is past, it is dropped.
    now = 301_000;
    expect(book.isValid(nonce, A)).toBe(false);
    expect(book.spent_count).toBe(0);
  });

  it('past its cap, forgets the spent nonces that expire first and refuses everything expiring by then', () => {
    let now = 0;
    const book = new NonceBook({ clock: () => now, spent_max: 4 });
    const early = [book.issue(A).nonce, book.issue(A).nonce];
    const unspent_in_that_second = book.issue(A).nonce;
    now = 1_000;
    const unspent_early = book.issue(A).nonce;
    const later = [book.issue(A).nonce, book.issue(A).nonce];
    now = 2_000;
    const latest = book.issue(A).nonce;
    const fresh = book.issue(A).nonce;
    for (const nonce of [...early, ...later]) {
      expect(book.isValid(nonce, A)).toBe(true);
      book.spend(nonce);
    }
    expect(book.spent_count).toBe(4);
    // Full: spending one more forgets the second that expires first (the two early ones) and closes it.
    expect(book.isValid(latest, A)).toBe(true);
    book.spend(latest);
    expect(book.spent_count).toBe(3);
    for (const nonce of [...early, unspent_in_that_second, ...later, latest])
      expect(book.isValid(nonce, A)).toBe(false);
    expect(book.isValid(unspent_early, A)).toBe(true);
    expect(book.isValid(fresh, A)).toBe(true);
  });

  it('when the nonce being spent is itself in the earliest second, the floor covers it without remembering it', () => {
    const book = new NonceBook({ clock: () => 0, spent_max: 1 });
    const [first, second] = [book.issue(A).nonce, book.issue(A).nonce];
    book.spend(first);
    expect(book.isValid(second, A)).toBe(true);
    book.spend(second);
    expect([book.isValid(first, A), book.isValid(second, A), book.spent_count]).toEqual([false, false, 0]);
  });
});
