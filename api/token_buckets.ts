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

/** Client addresses one limit remembers at most; past it the oldest is forgotten (handed a full bucket, never locked out). */
export const KEYS_TRACKED_MAX_DEFAULT = 100_000;
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
    private readonly keys_tracked_max = KEYS_TRACKED_MAX_DEFAULT,
  ) {
    this.refill_ms = Math.max(1000, Math.ceil((rate.burst / rate.tokens_per_second) * 1000));
  }

  /**
   * Spends `cost` tokens of this key's bucket if it holds them all, or says how many whole
   * seconds until it will; a refusal spends nothing.
   */
  take(key: string, cost = 1): Taken {
    const bucket = this.refilled(key);
    this.last_tokens = bucket.tokens;
    if (bucket.tokens < cost) return { granted: false, retry_after_seconds: this.secondsUntil(bucket, cost) };
    bucket.tokens -= cost;
    this.last_tokens = bucket.tokens;
    return cost === 1 ? GRANTED : { granted: true };
  }

  /**
   * Spends `cost` more tokens of a key, after the fact: what a request turned out to cost
   * beyond what it paid up front. The bucket may go into debt, down to minus its size, so
   * a client whose read cost more than it had waits until the debt is paid back.
   */
  charge(key: string, cost: number): void {
    if (cost <= 0) return;
    const bucket = this.refilled(key);
    bucket.tokens = Math.max(-this.rate.burst, bucket.tokens - cost);
    this.last_tokens = bucket.tokens;
  }

  /** Gives tokens back (a request refused after it paid), never past the bucket's size. */
  refund(key: string, tokens: number): void {
    const bucket = this.buckets.get(key);
    if (!bucket) return;
    bucket.tokens = Math.min(this.rate.burst, bucket.tokens + tokens);
    this.last_tokens = bucket.tokens;
  }

  /** This key's bucket, refilled to now (a new key gets a full one). */
  private refilled(key: string): Bucket {
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
    return bucket;
  }

  private secondsUntil(bucket: Bucket, tokens: number): number {
    return Math.max(1, Math.ceil((tokens - bucket.tokens) / this.rate.tokens_per_second));
  }

  /**
   * The key of the last take, as the rate-limit headers say it: the bucket's size, the
   * whole tokens left, and the seconds until it is full again. Read right after take.
   */
  lastStanding(): RateStanding {
    const missing = this.rate.burst - this.last_tokens;
    return {
      limit: this.rate.burst,
      remaining: Math.max(0, Math.floor(this.last_tokens)),
      reset_seconds: missing <= 0 ? 0 : Math.ceil(missing / this.rate.tokens_per_second),
    };
  }

  private sweep(now: number): void {
    this.next_sweep_ms = now + this.refill_ms;
    for (const [key, bucket] of this.buckets) {
      // Full again by now: a bucket in debt (see charge) is kept until it is.
      if (bucket.tokens + ((now - bucket.at_ms) / 1000) * this.rate.tokens_per_second >= this.rate.burst)
        this.buckets.delete(key);
    }
  }

  /** How many keys are tracked now (for tests of the memory bound). */
  get size(): number {
    return this.buckets.size;
  }
}
