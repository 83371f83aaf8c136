import type { Context } from 'koa';
import { clientAddressKey } from './client_address.js';
import { RefusalError } from './refusal_error.js';
import { TokenBuckets, type BucketRate, type RateStanding, type Taken } from './token_buckets.js';

/**
 * A limit per client address (an IPv6 client counts as its /64): past the burst,
 * 429 RATE_LIMITED with Retry-After and the message given. The read, nonce and
 * registration limits are each one of these.
 */
export class AddressLimit {
  private readonly buckets: TokenBuckets;

  constructor(
    rate: BucketRate,
    private readonly refusal_message: string,
    clock: () => number,
  ) {
    this.buckets = new TokenBuckets(rate, clock);
  }

  /**
   * The same three headers as lastHeaders, appended to a flat list (the form writeHead
   * takes), for the fast path in front of Koa.
   */
  appendLastHeaders(list: (string | string[])[]): void {
    for (const [name, value] of Object.entries(this.lastHeaders())) list.push(name, value);
  }

  /** Takes `cost` of this address's tokens, or throws the refusal. */
  check(ip: string, cost = 1): void {
    const taken = this.take(ip, cost);
    if (!taken.granted)
      throw RefusalError.of('RATE_LIMITED', this.refusal_message, { retry_after_seconds: taken.retry_after_seconds });
  }

  /** Checks a request's address, and says on the answer what it has left, refused (429) or not. */
  checkRequest(ctx: Pick<Context, 'ip' | 'set'>, cost = 1): void {
    try {
      this.check(ctx.ip, cost);
    } finally {
      ctx.set(this.lastHeaders());
    }
  }

  /** The headers saying what the address of the last check or take has left. */
  lastHeaders(): Record<string, string> {
    return rateLimitHeaders(this.buckets.lastStanding());
  }

  /** Takes `cost` of this address's tokens if it has them; a refusal spends nothing. */
  take(ip: string, cost = 1): Taken {
    return this.buckets.take(clientAddressKey(ip), cost);
  }

  /** Spends what a request cost beyond what it paid up front (the address may go into debt). */
  charge(ip: string, cost: number): void {
    this.buckets.charge(clientAddressKey(ip), cost);
  }

  /** Gives back what a request paid up front and was then refused for. */
  refund(ip: string, tokens: number): void {
    this.buckets.refund(clientAddressKey(ip), tokens);
  }
}

/**
 * A limit's standing as response headers (the IETF httpapi rate-limit fields in their
 * three-field form): the bucket's size, what is left now, and the seconds until it is
 * full again.
 */
export function rateLimitHeaders({ limit, remaining, reset_seconds }: RateStanding): Record<string, string> {
  return {
    'RateLimit-Limit': String(limit),
    'RateLimit-Remaining': String(remaining),
    'RateLimit-Reset': String(reset_seconds),
  };
}
