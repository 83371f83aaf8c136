import { describe, expect, it } from 'vitest';
import { TokenBuckets, type Taken } from '../api/token_buckets.js';

/** 0 when granted, else the seconds to wait. */
const waitOf = (taken: Taken) => (taken.granted ? 0 : taken.retry_after_seconds);

describe('token buckets sweeping refilled clients', () => {
  it('allows the burst, then answers how long to wait, refilling at the rate', () => {
    let now = 0;
    const limiter = new TokenBuckets({ tokens_per_second: 2, burst: 3 }, () => now);
    expect([limiter.take('a'), limiter.take('a'), limiter.take('a'), limiter.take('a')].map(waitOf)).toEqual([
      0, 0, 0, 1,
    ]);
    expect(waitOf(limiter.take('b'))).toBe(0);
    now += 500;
    expect([limiter.take('a'), limiter.take('a')].map(waitOf)).toEqual([0, 1]);
  });

  it('stays bounded however many addresses come, forgetting refilled buckets first', () => {
    let now = 0;
    const limiter = new TokenBuckets({ tokens_per_second: 10, burst: 10 }, () => now, 1_000);
    for (let i = 0; i < 100_000; i++) limiter.take(`10.0.${i >> 8}.${i & 255}`);
    expect(limiter.size).toBeLessThanOrEqual(1_000);
    // A second later every bucket is full again, so the next request sweeps them all away.
    now += 1_000;
    limiter.take('192.0.2.1');
    expect(limiter.size).toBe(1);
  });

  it('never forgets a client that is still limited because of its own requests', () => {
    let now = 0;
    const limiter = new TokenBuckets({ tokens_per_second: 1, burst: 2 }, () => now);
    limiter.take('a');
    limiter.take('a');
    now = 1_500;
    limiter.take('a');
    // A sweep is due (buckets refill in 2 s); a's bucket, half a token, must survive it.
    now = 2_000;
    limiter.take('b');
    expect([limiter.take('a'), limiter.take('a')].map(waitOf)).toEqual([0, 1]);
  });
});
