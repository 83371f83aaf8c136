import { describe, expect, it } from 'vitest';
import { NonceBook } from '../api/nonces.js';

describe('the nonce book', () => {
  it('issues distinct 144-bit nonces across refills of its random pool', () => {
    const book = new NonceBook({ clock: () => 0, outstanding_total_max: 10_000, outstanding_per_agent_max: 10_000 });
    const issued = Array.from({ length: 1000 }, () => book.issue('ag_0000000000000001').nonce);
    expect(new Set(issued).size).toBe(1000);
    for (const nonce of issued) expect(nonce).toMatch(/^[A-Za-z0-9_-]{24}$/);
    // Four refills' worth, and none read from an unfilled stretch of the pool.
    expect(issued.filter((nonce) => nonce === 'A'.repeat(24))).toEqual([]);
  });

  it('keeps a bounded number outstanding per agent and in all, oldest dropped first', () => {
    const book = new NonceBook({ clock: () => 0, outstanding_per_agent_max: 2, outstanding_total_max: 3 });
    const [a1, a2, a3] = [book.issue('ag_000000000000000a'), book.issue('ag_000000000000000a'), book.issue('ag_000000000000000a')].map((issued) => issued.nonce);
    expect([book.isValid(a1!, 'ag_000000000000000a'), book.isValid(a2!, 'ag_000000000000000a'), book.isValid(a3!, 'ag_000000000000000a')]).toEqual([false, true, true]);
    const b1 = book.issue('ag_000000000000000b').nonce;
    const b2 = book.issue('ag_000000000000000b').nonce;
    expect([book.size, book.isValid(a2!, 'ag_000000000000000a'), book.isValid(b1, 'ag_000000000000000b'), book.isValid(b2, 'ag_000000000000000b')]).toEqual([3, false, true, true]);
  });

  it('expires a nonce after its lifetime and spends each one once', () => {
    let now = 1_000;
    const book = new NonceBook({ clock: () => now, nonce_ttl_seconds: 300 });
    const { nonce, expires_at_ms } = book.issue('ag_000000000000000c');
    expect(expires_at_ms).toBe(301_000);
    expect(book.isValid(nonce, 'ag_000000000000000d')).toBe(false);
    expect(book.spend(nonce).expires_at_ms).toBe(301_000);
    expect(book.isValid(nonce, 'ag_000000000000000c')).toBe(false);
    const late = book.issue('ag_000000000000000c').nonce;
    now += 300_000;
    expect(book.isValid(late, 'ag_000000000000000c')).toBe(false);
  });
});
