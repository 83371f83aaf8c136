import type { EpochMs } from './time.js';
import { refuse, type Refusal } from './refusals.js';

/**
 * A member's allowance under a rule of the form "at most N in any rolling window" (motions
 * a day, bulletin posts a day, Aether messages a minute): what is used, what is left, and
 * when the oldest use leaves the window. The act that enforces the rule and the answer's
 * rate-limit headers read it from here, so they cannot disagree.
 */
export interface RollingAllowance {
  limit: number;
  remaining: number;
  /**
   * Seconds until the allowance is whole again, every counted use out of the window (0 when
   * none counts): the `RateLimit-Reset` header, whether or not some are left.
   */
  reset_seconds: number;
  /** Seconds until one more is allowed (0 while some are left): a refusal's `Retry-After`. */
  next_seconds: number;
}

/** `times` are the member's uses, oldest first; those older than the window do not count. */
export function rollingAllowance(
  times: readonly EpochMs[],
  at_ms: EpochMs,
  window_ms: number,
  limit: number,
): RollingAllowance {
  const since = at_ms - window_ms;
  let first = 0;
  while (first < times.length && times[first]! <= since) first++;
  const used = times.length - first;
  const remaining = Math.max(0, limit - used);
  // When full, one frees up as the oldest counted use leaves the window; it is whole once the newest has.
  const next_seconds = remaining > 0 ? 0 : Math.ceil((times[first + used - limit]! + window_ms - at_ms) / 1000);
  const reset_seconds = used === 0 ? 0 : Math.ceil((times[times.length - 1]! + window_ms - at_ms) / 1000);
  return { limit, remaining, reset_seconds, next_seconds };
}

/** The rule's refusal when nothing is left: RATE_LIMITED with the seconds to wait. */
export function rollingRefusal(allowance: RollingAllowance, explanation: string): Refusal | undefined {
  if (allowance.remaining > 0) return undefined;
  return refuse('RATE_LIMITED', explanation, { retry_after_seconds: allowance.next_seconds });
}
