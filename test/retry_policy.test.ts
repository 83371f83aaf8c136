import { describe, expect, it } from 'vitest';
import { CATALOGUE } from '../engine/catalogue.js';
import {
  DEFAULT_RETRY_POLICY,
  FAILOVER_BOUND_MS,
  ROUTES_KEEPING_ANSWERS,
  decideAfterRefusedNonce,
  decideResend,
  keepsAnswers,
  nonceValidUntilMs,
  sendWithRetries,
  type AnswerHead,
  type RefusedNonce,
} from '../client/retry_policy.js';

/** A clock only the loop's own waits move, and the sendings it saw, by time. */
function fakeClock() {
  let now_ms = 0;
  return {
    now_ms: () => now_ms,
    sleep: async (ms: number) => {
      now_ms += ms;
    },
  };
}

const answer = (status: number, retry_after?: string): AnswerHead => ({
  status,
  headers: { get: (name: string) => (name.toLowerCase() === 'retry-after' ? (retry_after ?? null) : null) },
});

const refused_connection = () => new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } });

/**
 * A failover as a replica's client sees it: the replicas redirect to the dead leader (fetch rejects)
 * until its lease lapses, then answer NOT_LEADER until the next leader writes.
 */
function failover(clock: { now_ms(): number }, lease_lapses_at_ms: number, writes_at_ms: number) {
  const sendings_at_ms: number[] = [];
  const send = async () => {
    const at_ms = clock.now_ms();
    sendings_at_ms.push(at_ms);
    if (at_ms < lease_lapses_at_ms) throw refused_connection();
    return at_ms < writes_at_ms ? answer(503, '1') : answer(200);
  };
  return { send, sendings_at_ms };
}

describe('the retry budget', () => {
  it('covers the failover bound twice over', () => {
    expect(FAILOVER_BOUND_MS).toBe(15_000);
    expect(DEFAULT_RETRY_POLICY.retry_budget_ms).toBeGreaterThanOrEqual(2 * FAILOVER_BOUND_MS);
  });

  it('rides through a 12 s failover: redirects to a dead leader, then NOT_LEADER, then an answer', async () => {
    const clock = fakeClock();
    const { send, sendings_at_ms } = failover(clock, 10_000, 12_000);
    const outcome = await sendWithRetries({ send, clock });
    expect('answer' in outcome && outcome.answer.status).toBe(200);
    expect(outcome.answer_lost).toBe(true);
    // Backing off 250 ms doubling to 2 s, then a second between NOT_LEADERs.
    expect(sendings_at_ms).toEqual([0, 250, 750, 1_750, 3_750, 5_750, 7_750, 9_750, 11_750, 12_750]);
  });

  it('rides through a failover as slow as the bound, from a request sent just as the leader died', async () => {
    const clock = fakeClock();
    const { send, sendings_at_ms } = failover(clock, 10_000, FAILOVER_BOUND_MS);
    const outcome = await sendWithRetries({ send, clock });
    expect('answer' in outcome && outcome.answer.status).toBe(200);
    expect(sendings_at_ms.at(-1)! - FAILOVER_BOUND_MS).toBeLessThanOrEqual(DEFAULT_RETRY_POLICY.backoff_cap_ms);
  });

  it('is not exceeded by a network that never answers: the last sending fits it, the next would not', async () => {
    const clock = fakeClock();
    const { send, sendings_at_ms } = failover(clock, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
    const outcome = await sendWithRetries({ send, clock });
    expect('failed' in outcome && outcome.failed).toBeInstanceOf(TypeError);
    const last_ms = sendings_at_ms.at(-1)!;
    expect(last_ms).toBeLessThanOrEqual(DEFAULT_RETRY_POLICY.retry_budget_ms);
    expect(last_ms + DEFAULT_RETRY_POLICY.backoff_cap_ms).toBeGreaterThan(DEFAULT_RETRY_POLICY.retry_budget_ms);
    expect(clock.now_ms()).toBe(last_ms);
  });

  it('is not exceeded by NOT_LEADER for ever: the last 503 is handed over', async () => {
    const clock = fakeClock();
    const { send, sendings_at_ms } = failover(clock, 0, Number.POSITIVE_INFINITY);
    const outcome = await sendWithRetries({ send, clock });
    expect('answer' in outcome && outcome.answer.status).toBe(503);
    expect(outcome.answer_lost).toBe(false);
    expect(sendings_at_ms.at(-1)).toBe(DEFAULT_RETRY_POLICY.retry_budget_ms);
    expect(sendings_at_ms).toHaveLength(DEFAULT_RETRY_POLICY.retry_budget_ms / 1000 + 1);
  });

  it('is not spent on a wait the budget cannot hold: Retry-After past it hands the 503 over at once', async () => {
    const clock = fakeClock();
    const far = async () => answer(503, String(DEFAULT_RETRY_POLICY.retry_budget_ms / 1000 + 1));
    const outcome = await sendWithRetries({ send: far, clock });
    expect(['answer' in outcome && outcome.answer.status, outcome.sendings, clock.now_ms()]).toEqual([503, 1, 0]);
  });
});

describe('what is sent again', () => {
  const so_far = { network_failures: 1, elapsed_ms: 0 };

  it('the same request after a network failure or a timeout, not after another failure', () => {
    expect(decideResend({ lost: refused_connection() }, so_far)).toEqual({ resend_after_ms: 250 });
    const timeout = new DOMException('The operation was aborted due to timeout', 'TimeoutError');
    expect(decideResend({ lost: timeout }, so_far)).toEqual({ resend_after_ms: 250 });
    const abort = new DOMException('This operation was aborted', 'AbortError');
    expect(decideResend({ lost: abort }, so_far)).toEqual({ give_up: abort });
    const bad_url = new TypeError('Failed to parse URL', { cause: { code: 'ERR_INVALID_URL' } });
    expect(decideResend({ lost: bad_url }, so_far)).toEqual({ give_up: bad_url });
  });

  it('the same request after a 503 with Retry-After, waiting as long; every other answer is final', () => {
    expect(decideResend(answer(503, '3'), so_far)).toEqual({ resend_after_ms: 3_000 });
    expect(decideResend(answer(503), so_far)).toEqual({ final: true });
    expect(decideResend(answer(429, '1'), so_far)).toEqual({ final: true });
    expect(decideResend(answer(401), so_far)).toEqual({ final: true });
    expect(decideResend(answer(200), so_far)).toEqual({ final: true });
  });

  it('lets go of each 503 it does not hand over', async () => {
    const clock = fakeClock();
    const discarded: AnswerHead[] = [];
    const answers = [answer(503, '1'), answer(503, '1'), answer(200)];
    const outcome = await sendWithRetries({
      send: async () => answers.shift()!,
      clock,
      discard: (a) => discarded.push(a),
    });
    expect(discarded.map((a) => a.status)).toEqual([503, 503]);
    expect('answer' in outcome && outcome.answer.status).toBe(200);
  });
});

describe('a request refused NONCE_INVALID', () => {
  // Asked for at 0 and issued for the protocol's 300 s, on a server clock in step with this one.
  const valid_until_ms = nonceValidUntilMs({
    asked_at_ms: 0,
    received_at_ms: 40,
    expires_at: new Date(300_020).toISOString(),
  });
  const refused = (changes: Partial<RefusedNonce>): RefusedNonce => ({
    answer_lost: true,
    keeps_answers: true,
    refused_at_ms: 10_000,
    nonce_valid_until_ms: valid_until_ms,
    re_signed: false,
    ...changes,
  });

  it('after a lost answer, within the nonce lifetime, on an act route: is signed again, once', () => {
    expect(valid_until_ms).toBe(299_980);
    expect(decideAfterRefusedNonce(refused({ refused_at_ms: 299_979 }))).toEqual({ re_sign: true });
    expect(decideAfterRefusedNonce(refused({ re_signed: true, answer_lost: false }))).toEqual({ refused: true });
  });

  it('after a lost answer, once the nonce has expired: its outcome is unknown', () => {
    const after = decideAfterRefusedNonce(refused({ refused_at_ms: 299_980 }));
    expect(after).toEqual({ outcome_unknown: expect.stringMatching(/expired/) });
  });

  it('after a lost answer on a payment, grant or operator route: never signed again', () => {
    for (const path of ['/api/v1/membership/checkout', '/api/v1/grants', '/operator/backup']) {
      expect(keepsAnswers(path)).toBe(false);
      const after = decideAfterRefusedNonce(refused({ keeps_answers: keepsAnswers(path) }));
      expect(after).toEqual({ outcome_unknown: expect.stringMatching(/keeps no answer/) });
    }
  });

  it('with every sending answered, on any route: was not applied, so is signed again, once', () => {
    for (const keeps_answers of [true, false]) {
      const sent_once = refused({ answer_lost: false, keeps_answers, refused_at_ms: 400_000 });
      expect(decideAfterRefusedNonce(sent_once)).toEqual({ re_sign: true });
      expect(decideAfterRefusedNonce({ ...sent_once, re_signed: true })).toEqual({ refused: true });
    }
  });
});

describe("a nonce's life on this machine's clock", () => {
  it('is cut short by an expiry the server says is nearer, never made longer by one further off', () => {
    const at = (expires_at_ms: number) =>
      nonceValidUntilMs({
        asked_at_ms: 1_000,
        received_at_ms: 1_100,
        expires_at: new Date(expires_at_ms).toISOString(),
      });
    // A server clock 280 s behind this one: its nonce looks 20 s from expiry here.
    expect(at(1_100 + 20_000)).toBe(1_000 + 20_000);
    // A server clock an hour ahead: still 300 s from the asking.
    expect(at(1_100 + 3_600_000)).toBe(1_000 + 300_000);
  });

  it('is nothing when no expiry came with the nonce', () => {
    expect(nonceValidUntilMs({ asked_at_ms: 1_000, received_at_ms: 1_100, expires_at: null })).toBe(1_000);
    expect(nonceValidUntilMs({ asked_at_ms: 1_000, received_at_ms: 1_100, expires_at: 'soon' })).toBe(1_000);
  });
});

describe('the routes that keep answers', () => {
  it("are every act's own route and POST /api/v1/act, and no other", () => {
    const act_routes = CATALOGUE.flatMap((act) => (act.rest ? [act.rest.path] : []));
    expect([...ROUTES_KEEPING_ANSWERS].sort()).toEqual(['/api/v1/act', ...act_routes].sort());
    expect(keepsAnswers('/api/v1/act?trace=1')).toBe(true);
  });
});
