/** How fast a client's allowance refills, and how much of it may be spent at once. */
export interface BucketRate {
  tokens_per_second: number;
  /** The bucket's size: a new or long-idle client may spend this many at once. */
  burst: number;
}

/** What a client has left of a limit: RateLimit-Limit, RateLimit-Remaining and RateLimit-Reset. */
export interface RateStanding {
  limit: number;
  remaining: number;
  reset_seconds: number;
}

export type Taken = { granted: true } | { granted: false; retry_after_seconds: number };

interface Bucket {
  tokens: number;
  at_ms: number;
}

const keys_tracked_max_default = 100_000;
// One shared answer: the read limiter takes a token on every public read.
const GRANTED: Taken = Object.freeze({ granted: true });

/**
 * One token bucket per client key (an address, usually), refilled lazily on use.
 * Memory is bounded whatever keys arrive: a bucket that has filled up again says
 * nothing a fresh one would not, so such buckets are swept away, and past
 * keys_tracked_max the oldest key is forgotten, which can only ever hand a client a
 * fresh (full) bucket, never lock one out.
 */
export class TokenBuckets {
  private readonly buckets = new Map<string, Bucket>();
  /** A bucket left alone this long is full again. */
  private readonly refill_ms: number;
  private next_sweep_ms = 0;
  /** The tokens the last take left (or found, when it refused): what the rate-limit headers report, read in the same turn. */
  private last_tokens = 0;

  constructor(
    private readonly rate: BucketRate,
    private readonly clock: () => number,
    private readonly keys_tracked_max = keys_tracked_max_default,
  ) {
    this.refill_ms = Math.max(1000, Math.ceil((rate.burst / rate.tokens_per_second) * 1000));
  }

  /** Spends one token of this key's bucket, or says how many whole seconds until one is there. */
  take(key: string): Taken {
    const now = this.clock();
    if (now >= this.next_sweep_ms) this.sweep(now);
    let bucket = this.buckets.get(key);
    if (!bucket) {
      if (this.buckets.size >= this.keys_tracked_max) this.buckets.delete(this.buckets.keys().next().value!);
      bucket = { tokens: this.rate.burst, at_ms: now };
      this.buckets.set(key, bucket);
    }
    bucket.tokens = Math.min(
      this.rate.burst,
      bucket.tokens + (Math.max(0, now - bucket.at_ms) / 1000) * this.rate.tokens_per_second,
    );
    bucket.at_ms = now;
    this.last_tokens = bucket.tokens;
    if (bucket.tokens < 1)
      return {
        granted: false,
        retry_after_seconds: Math.max(1, Math.ceil((1 - bucket.tokens) / this.rate.tokens_per_second)),
      };
    bucket.tokens -= 1;
    this.last_tokens = bucket.tokens;
    return GRANTED;
  }

  /**
   * The key of the last take, as the rate-limit headers say it: the bucket's size, the
   * whole tokens left, and the seconds until it is full again. Read right after take.
   */
  lastStanding(): RateStanding {
    const missing = this.rate.burst - this.last_tokens;
    return {
      limit: this.rate.burst,
      remaining: Math.floor(this.last_tokens),
      reset_seconds: missing <= 0 ? 0 : Math.ceil(missing / this.rate.tokens_per_second),
    };
  }

  private sweep(now: number): void {
    this.next_sweep_ms = now + this.refill_ms;
    for (const [key, bucket] of this.buckets) {
      if (now - bucket.at_ms >= this.refill_ms) this.buckets.delete(key);
    }
  }

  /** How many keys are tracked now (for tests of the memory bound). */
  get size(): number {
    return this.buckets.size;
  }
}
