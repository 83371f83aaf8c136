/**
 * When a client sends a request again, signs it again, or gives up (docs/protocol.md, "Replicated
 * societies: 307 and NOT_LEADER"). Pure but for the clock and the waits it is handed, so that the
 * SDK and a simulator of failovers run the very same decisions.
 */

/**
 * How long a failover takes at most: the lease's ttl (LEASE_TTL_MS, 10 s by default), the replica's
 * check (a second) and its catch-up; docs/scaling.md measures 9.7 to 11.6 s and holds it under this.
 */
export const FAILOVER_BOUND_MS = 15_000;

/** A nonce's lifetime (docs/protocol.md, "Nonces and signatures"): the server keeps a retry's answer as long. */
export const NONCE_LIFETIME_MS = 300_000;

export interface RetryPolicy {
  /** How long after its first sending a request may still be sent again. */
  retry_budget_ms: number;
  /** The wait after the first network failure, doubled after each further one up to backoff_cap_ms. */
  backoff_first_ms: number;
  backoff_cap_ms: number;
  /**
   * How long one sending waits for its answer before it counts as lost (fetch rejects with a
   * TimeoutError) and is sent again: a frozen leader (paused, its machine gone without a reset)
   * never answers, and the budget is only looked at between sendings. Longer than the longest
   * a live writer takes to answer (OUTCOME_PENDING after at most 5 s).
   */
  sending_timeout_ms?: number;
}

export const DEFAULT_SENDING_TIMEOUT_MS = 10_000;

export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  // Twice the bound: a request sent just before the leader died still meets the next one, with room
  // for a catch-up slower than measured, and the last resend comes at most backoff_cap_ms after it writes.
  retry_budget_ms: 2 * FAILOVER_BOUND_MS,
  backoff_first_ms: 250,
  backoff_cap_ms: 2_000,
  sending_timeout_ms: DEFAULT_SENDING_TIMEOUT_MS,
};

/** Time as the retry loop sees it; a simulator hands in its own. */
export interface RetryClock {
  now_ms(): number;
  sleep(ms: number): Promise<void>;
}

export const SYSTEM_CLOCK: RetryClock = {
  now_ms: () => Date.now(),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
};

/**
 * The routes that answer a retry of an applied request with its kept answer: every act's, its own
 * (the catalogue's `rest` paths, held to it by test/retry_policy.test.ts) or POST /api/v1/act. The
 * payment, grant and operator routes keep none, so a request to them whose answer was lost is
 * never signed again: the first may have been applied.
 */
export const ROUTES_KEEPING_ANSWERS: ReadonlySet<string> = new Set([
  '/api/v1/act',
  '/api/v1/register',
  '/api/v1/keys/backup',
  '/api/v1/keys/rotate',
  '/api/v1/pom/challenge',
  '/enactment/apply',
  '/enactment/dispatch',
  '/enactment/resolve',
]);

export function keepsAnswers(path: string): boolean {
  return ROUTES_KEEPING_ANSWERS.has(path.split('?')[0]!);
}

/** What an answer needs to show for the decisions: fetch's Response has it. */
export interface AnswerHead {
  status: number;
  headers: { get(name: string): string | null };
}

/** What one sending came to: no answer (the network lost the request or its answer), or an answer. */
export type Happened = { lost: unknown } | AnswerHead;

export interface SoFar {
  /** Sendings that got no answer, this one included. */
  network_failures: number;
  /** Since the first sending. */
  elapsed_ms: number;
}

export type SendDecision =
  | { resend_after_ms: number }
  /** The answer is the one to hand over (a final one, or a 503 the budget leaves no time to wait out). */
  | { final: true }
  | { give_up: unknown };

/**
 * After a network failure, the same request again, backing off; after a 503 with Retry-After
 * (NOT_LEADER: no node writes right now; QUEUE_FULL), the same request again once it has passed,
 * since nothing was done or spent. Only while the budget lasts; every other answer is final.
 */
export function decideResend(happened: Happened, so_far: SoFar, policy = DEFAULT_RETRY_POLICY): SendDecision {
  const fits = (wait_ms: number) => so_far.elapsed_ms + wait_ms <= policy.retry_budget_ms;
  if ('lost' in happened) {
    const wait_ms = backoffMs(so_far.network_failures, policy);
    return isNetworkFailure(happened.lost) && fits(wait_ms) ? { resend_after_ms: wait_ms } : { give_up: happened.lost };
  }
  const wait_ms = retryAfterMs(happened);
  return wait_ms !== undefined && fits(wait_ms) ? { resend_after_ms: wait_ms } : { final: true };
}

/** 250 ms, 500 ms, 1 s, 2 s, 2 s...: quick for a dropped connection, then steady through a failover. */
export function backoffMs(network_failures: number, policy = DEFAULT_RETRY_POLICY): number {
  const doublings = Math.min(Math.max(network_failures - 1, 0), 30);
  return Math.min(policy.backoff_first_ms * 2 ** doublings, policy.backoff_cap_ms);
}

/** The wait a 503 asks for; the service sends Retry-After in seconds. */
function retryAfterMs(answer: AnswerHead): number | undefined {
  if (answer.status !== 503) return undefined;
  const seconds = Number(answer.headers.get('retry-after') ?? '');
  return seconds > 0 ? seconds * 1000 : undefined;
}

/**
 * fetch rejects with a TypeError when the connection failed or dropped (a dead leader a 307 points
 * at included), and with a TimeoutError when a caller's timeout fired; a URL it cannot parse is a
 * TypeError too, but sending it again cannot help.
 */
export function isNetworkFailure(error: unknown): boolean {
  if (error instanceof Error && error.name === 'TimeoutError') return true;
  if (!(error instanceof TypeError)) return false;
  return (error.cause as { code?: unknown } | undefined)?.code !== 'ERR_INVALID_URL';
}

export interface SendLoop<A extends AnswerHead> {
  /** Sends the request, the very same each time. */
  send: () => Promise<A>;
  clock?: RetryClock;
  policy?: RetryPolicy;
  /** Lets go of an answer that is not handed over (a 503 before its resend): a Response's body. */
  discard?: (answer: A) => unknown;
}

export type LoopOutcome<A> = (
  | { answer: A }
  /** The last sending failed on the network and no more fit the budget, or the failure was not a network's. */
  | { failed: unknown }
) & {
  /** Whether some sending got no answer: it may have been applied all the same. */
  answer_lost: boolean;
  sendings: number;
};

/** Sends until an answer is final or the budget is spent, waiting as decideResend says. */
export async function sendWithRetries<A extends AnswerHead>(loop: SendLoop<A>): Promise<LoopOutcome<A>> {
  const { send, clock = SYSTEM_CLOCK, policy = DEFAULT_RETRY_POLICY } = loop;
  const started_ms = clock.now_ms();
  let network_failures = 0;
  let sendings = 0;
  for (;;) {
    sendings++;
    let answer: A | undefined;
    let lost: unknown;
    try {
      answer = await send();
    } catch (error) {
      // Any other failure (a caller's abort, a URL fetch cannot parse) is handed back as it is.
      if (isNetworkFailure(error)) network_failures++;
      lost = error;
    }
    const happened: Happened = answer ?? { lost };
    const decision = decideResend(happened, { network_failures, elapsed_ms: clock.now_ms() - started_ms }, policy);
    const answer_lost = network_failures > 0;
    if ('give_up' in decision) return { failed: decision.give_up, answer_lost, sendings };
    // Only an answer is ever final.
    if ('final' in decision) return { answer: answer as A, answer_lost, sendings };
    if (answer) await loop.discard?.(answer);
    await clock.sleep(decision.resend_after_ms);
  }
}

/**
 * Until when a nonce was surely valid, on this machine's clock: `expires_at` is on the server's, so
 * it only ever shortens the lifetime counted from the moment the nonce was asked for (it was issued
 * after that). Without an expiry, the nonce is taken as expired at once: the safe side.
 */
export function nonceValidUntilMs(nonce: { asked_at_ms: number; received_at_ms: number; expires_at?: string | null }) {
  const expires_at_ms = nonce.expires_at ? Date.parse(nonce.expires_at) : Number.NaN;
  if (Number.isNaN(expires_at_ms)) return nonce.asked_at_ms;
  return nonce.asked_at_ms + Math.min(NONCE_LIFETIME_MS, expires_at_ms - nonce.received_at_ms);
}

export interface RefusedNonce {
  /** Whether some sending of the request got no answer: it may have been applied. */
  answer_lost: boolean;
  /** Whether the route answers a retry of an applied request with its kept answer (keepsAnswers). */
  keeps_answers: boolean;
  /** When the 401 NONCE_INVALID arrived, and until when the nonce was surely valid, on this machine's clock. */
  refused_at_ms: number;
  nonce_valid_until_ms: number;
  /** Whether this request is already the one signed again. */
  re_signed: boolean;
}

/** Sign again with a fresh nonce; or hand the refusal over (it proves nothing was applied); or say why nobody knows. */
export type AfterRefusedNonce = { re_sign: true } | { refused: true } | { outcome_unknown: string };

/**
 * A 401 NONCE_INVALID says the request was not applied when every sending was answered (the one
 * that reached the server was refused), or when a retry reached a route that keeps answers while
 * the nonce lived: had the first been applied, the retry would have got its kept answer, and the
 * log fences out an old leader's late writes, so it never will be. Then, and only then, the
 * request is signed again with a fresh nonce, once. Otherwise nobody can say whether it was.
 */
export function decideAfterRefusedNonce(refused: RefusedNonce): AfterRefusedNonce {
  if (refused.answer_lost && !refused.keeps_answers)
    return { outcome_unknown: 'its route keeps no answer for a resend to get' };
  if (refused.answer_lost && refused.refused_at_ms >= refused.nonce_valid_until_ms)
    return { outcome_unknown: 'its nonce had expired by the time a resend was refused' };
  return refused.re_signed ? { refused: true } : { re_sign: true };
}

/** Why a request whose answer was lost ended without a final one: the budget ran out first. */
export function budgetSpentReason(policy = DEFAULT_RETRY_POLICY): string {
  return `no final answer came in the ${policy.retry_budget_ms / 1000} s it is sent again for`;
}

/**
 * A signed request whose answer was lost and whose outcome no resend can tell any more: its nonce
 * expired, its route keeps no answers, or no final answer came within the budget. Signing it again
 * could do it twice; the ledger says whether it was done.
 */
export class OutcomeUnknownError extends Error {
  readonly code = 'OUTCOME_UNKNOWN';

  constructor(
    /** "POST /api/v1/act" and the like. */
    readonly request: string,
    readonly agent_id: string,
    readonly reason: string,
    cause: unknown,
  ) {
    super(
      `${request} as ${agent_id}: outcome unknown. Its answer was lost on the network, and ${reason} ` +
        `(last: ${cause instanceof Error ? cause.message : String(cause)}), so it may or may not have been applied. ` +
        `It was not signed again, which could apply it twice: look for it among ${agent_id}'s entries on the ` +
        'ledger (GET /api/v1/ledger, or follow()) before deciding to do it again.',
      { cause },
    );
    this.name = 'OutcomeUnknownError';
  }
}
