import { describe, expect, it } from 'vitest';
import { ClientRateLimiter, clientOf } from '../api/client_limiter.js';

describe('the per-client rate limiter', () => {
  it('allows the burst, then answers how long to wait, refilling at the rate', () => {
    let now = 0;
    const limiter = new ClientRateLimiter({ per_second: 2, burst: 3 }, () => now);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a'), limiter.take('a')]).toEqual([0, 0, 0, 1]);
    expect(limiter.take('b')).toBe(0);
    now += 500;
    expect([limiter.take('a'), limiter.take('a')]).toEqual([0, 1]);
  });

  it('stays bounded however many addresses come, forgetting refilled buckets first', () => {
    let now = 0;
    const limiter = new ClientRateLimiter({ per_second: 10, burst: 10 }, () => now, 1_000);
    for (let i = 0; i < 100_000; i++) limiter.take(`10.0.${i >> 8}.${i & 255}`);
    expect(limiter.tracked).toBeLessThanOrEqual(1_000);
    // A second later every bucket is full again, so the next request sweeps them all away.
    now += 1_000;
    limiter.take('192.0.2.1');
    expect(limiter.tracked).toBe(1);
  });

  it('never forgets a client that is still limited because of its own requests', () => {
    let now = 0;
    const limiter = new ClientRateLimiter({ per_second: 1, burst: 2 }, () => now);
    limiter.take('a');
    limiter.take('a');
    now = 1_500;
    limiter.take('a');
    // A sweep is due (buckets refill in 2 s); a's bucket, half a token, must survive it.
    now = 2_000;
    limiter.take('b');
    expect([limiter.take('a'), limiter.take('a')]).toEqual([0, 1]);
  });
});

describe('the client an address counts as', () => {
  it('is the address itself for IPv4, and the /64 for IPv6', () => {
    expect(clientOf('203.0.113.7')).toBe('203.0.113.7');
    expect(clientOf('::ffff:203.0.113.7')).toBe('::ffff:203.0.113.7');
    expect(clientOf('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:0DB8:0001:0002:ffff::1')).toBe('2001:db8:1:2::/64');
    expect(clientOf('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientOf('2001:db8:1:2::%eth0')).toBe('2001:db8:1:2::/64');
    expect(clientOf('::1')).toBe('0:0:0:0::/64');
    expect(clientOf('fe80::1:2:3:4')).toBe(clientOf('fe80::9:8:7:6'));
  });
});
