import { describe, expect, it } from 'vitest';
import { clientAddressKey } from '../api/client_address.js';
import { TokenBuckets } from '../api/token_buckets.js';

describe('token buckets per client', () => {
  it('grant the burst at once, then one token per refill period, answering how long to wait', () => {
    let now = 0;
    const buckets = new TokenBuckets({ tokens_per_second: 6 / 3600, burst: 2 }, () => now);
    expect([buckets.take('a'), buckets.take('a')]).toEqual([{ granted: true }, { granted: true }]);
    expect(buckets.take('a')).toEqual({ granted: false, retry_after_seconds: 600 });
    expect(buckets.take('b')).toEqual({ granted: true });
    now += 599_000;
    expect(buckets.take('a')).toEqual({ granted: false, retry_after_seconds: 1 });
    now += 1000;
    expect(buckets.take('a')).toEqual({ granted: true });
    // A clock stepping back refills nothing and takes nothing away.
    now -= 3_600_000;
    expect(buckets.take('a')).toMatchObject({ granted: false });
  });

  it('track a bounded number of clients, forgetting the oldest first', () => {
    const buckets = new TokenBuckets({ tokens_per_second: 1, burst: 1 }, () => 0, 100);
    for (let i = 0; i < 10_000; i++) buckets.take(`client-${i}`);
    expect(buckets.size).toBe(100);
    expect(buckets.take('client-9999')).toMatchObject({ granted: false });
  });
});

describe('the address a per-address limit counts under', () => {
  it('is an IPv4 address itself, also when a dual-stack socket maps it into IPv6', () => {
    expect(clientAddressKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientAddressKey('::FFFF:203.0.113.7')).toBe('203.0.113.7');
  });

  it('is the /64 network of an IPv6 address, however the address is written', () => {
    const key = '2001:db8:0:1::/64';
    for (const address of [
      '2001:db8:0:1::1',
      '2001:0db8:0000:0001:ffff:ffff:ffff:ffff',
      '2001:DB8::1:0:0:0:2',
      '2001:db8:0:1:1::',
      '2001:db8:0:1::1%eth0',
    ]) {
      expect(clientAddressKey(address), address).toBe(key);
    }
    expect(clientAddressKey('2001:db8:0:2::1')).not.toBe(key);
    expect(clientAddressKey('::1')).toBe('0:0:0:0::/64');
    expect(clientAddressKey('::')).toBe('0:0:0:0::/64');
    expect(clientAddressKey('64:ff9b::192.0.2.33')).toBe('64:ff9b:0:0::/64');
  });

  it('leaves anything else as it came (a Unix socket, an empty address)', () => {
    expect(clientAddressKey('')).toBe('');
    expect(clientAddressKey('unix')).toBe('unix');
  });
});
