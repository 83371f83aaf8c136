export interface ClientRate {
  /** Sustained requests a second per client. */
  per_second: number;
  /** How many a client may make at once before the rate applies. */
  burst: number;
}

interface Bucket {
  tokens: number;
  at_ms: number;
}

/**
 * A token bucket per client. Memory stays bounded whatever addresses arrive: a bucket
 * that has filled up again says nothing a fresh one would not, so such buckets are
 * swept away, and past clients_tracked_max the longest-tracked one is dropped (which
 * only ever hands that client a fresh burst).
 */
export class ClientRateLimiter {
  private readonly buckets = new Map<string, Bucket>();
  private readonly refill_ms: number;
  private next_sweep_ms = 0;

  constructor(
    private readonly rate: ClientRate,
    private readonly clock: () => number,
    private readonly clients_tracked_max = 100_000,
  ) {
    // A bucket left alone this long is full again.
    this.refill_ms = Math.max(1000, Math.ceil((rate.burst / rate.per_second) * 1000));
  }

  /** Clients with a bucket now. */
  get tracked(): number {
    return this.buckets.size;
  }

  /** 0 if the client may go ahead (it spends one token), else the whole seconds until it may. */
  take(client: string): number {
    const now = this.clock();
    if (now >= this.next_sweep_ms) this.sweep(now);
    let bucket = this.buckets.get(client);
    if (!bucket) {
      if (this.buckets.size >= this.clients_tracked_max) this.buckets.delete(this.buckets.keys().next().value!);
      bucket = { tokens: this.rate.burst, at_ms: now };
      this.buckets.set(client, bucket);
    }
    bucket.tokens = Math.min(this.rate.burst, bucket.tokens + ((now - bucket.at_ms) / 1000) * this.rate.per_second);
    bucket.at_ms = now;
    if (bucket.tokens < 1) return Math.max(1, Math.ceil((1 - bucket.tokens) / this.rate.per_second));
    bucket.tokens -= 1;
    return 0;
  }

  private sweep(now: number): void {
    this.next_sweep_ms = now + this.refill_ms;
    for (const [client, bucket] of this.buckets) {
      if (now - bucket.at_ms >= this.refill_ms) this.buckets.delete(client);
    }
  }
}

/**
 * The client a request is counted against: its IPv4 address, or the /64 of an IPv6
 * address, since one host is commonly handed a whole /64 and could otherwise make up
 * fresh addresses at will.
 */
export function clientOf(ip: string): string {
  if (!ip.includes(':') || ip.startsWith('::ffff:')) return ip;
  const address = ip.split('%')[0]!.toLowerCase();
  const [head = '', tail] = address.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const leading = groups(head);
  const filled = tail === undefined ? leading : [...leading, ...Array<string>(Math.max(0, 8 - leading.length - groups(tail).length)).fill('0'), ...groups(tail)];
  return `${filled.slice(0, 4).map((group) => group.replace(/^0+(?=.)/, '')).join(':')}::/64`;
}
