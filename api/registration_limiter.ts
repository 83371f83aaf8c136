import type { Middleware } from 'koa';
import { AddressLimit } from './address_limit.js';

export interface RegistrationLimits {
  /** Sustained registrations an hour per client address (an IPv6 client: per /64). */
  registrations_per_hour: number;
  /** How many registrations an address may make at once before the hourly rate applies. */
  burst_registrations: number;
}

/**
 * The first handler of POST /api/v1/register. Every attempt from an address takes a
 * token, whatever its outcome; past the burst the answer is 429 RATE_LIMITED with
 * Retry-After, given before the signature is checked, so a refused registration
 * spends no nonce and reaches neither the engine nor the ledger. Without it one
 * address could register thousands of members a minute (see docs/governance.md, Sybils).
 */
export function registrationLimiter(limits: RegistrationLimits, clock: () => number): Middleware {
  const limit = new AddressLimit(
    { tokens_per_second: limits.registrations_per_hour / 3600, burst: limits.burst_registrations },
    `At most ${limits.registrations_per_hour} registrations an hour per client address (bursts of ${limits.burst_registrations}).`,
    clock,
  );
  return async (ctx, next) => {
    limit.checkRequest(ctx);
    await next();
  };
}
