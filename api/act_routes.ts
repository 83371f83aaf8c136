import type { Routes } from './routes.js';
import type { Context } from 'koa';
import { z } from 'zod';
import {
  type ActDefinition,
  type ApplyOutcome,
  type ReadAct,
  type RefusalCode,
  CATALOGUE,
  findAct,
  refuse,
  type PomAnswer,
  type Engine,
  type SubmitResult,
} from '../engine/index.js';
import type { Authenticated, Authenticator } from './authenticate.js';
import { rateLimitHeaders } from './address_limit.js';
import { type Found, HEADER_IDEMPOTENT_REPLAYED, type RetryBook } from './retries/retry_book.js';
import { canonicalOrThrow, parseOrThrow } from './parse.js';
import { RefusalError } from './refusal_error.js';
import type { Receipt, TransparencyLog } from './log/transparency_log.js';

/** The request of POST /api/v1/act, as the specification gives it; defaults are part of what is signed. */
export const ActRequestSchema = z.strictObject({
  act: z.string().min(1).max(64).nullable().default(null),
  challenge_id: z.string().max(128).nullable().default(null),
  puzzle_solution: z.string().max(4096).nullable().default(null),
  payload: z.record(z.string(), z.unknown()).nullable().default(null),
});

interface ActRouteDeps {
  engine: Engine;
  authenticator: Authenticator;
  /** Gives each write its receipt: the proof that its first entry is on the log. */
  log: TransparencyLog;
  /** The host clock: what an act's allowance (its RateLimit headers) is counted at. */
  clock: () => number;
  /** The answers kept for retried requests. */
  retries: RetryBook;
  /**
   * A replicated society's writer: how long a write may wait for its outcome before it is
   * answered 503 OUTCOME_PENDING (the log is unreachable; the act may still land). The
   * embedded default has none: its commit is a local disk write.
   */
  answer_deadline_ms?: number;
}

/**
 * Every act reaches the engine through here, from its dedicated route (the body is
 * the payload) or from POST /api/v1/act (the payload sits in the request). Both
 * paths parse with the act's schema, sign over the parsed output, and submit.
 */
export function mountActRoutes(router: Routes, deps: ActRouteDeps): void {
  for (const act of CATALOGUE) {
    if (!act.rest) continue;
    router.post(act.rest.path, async (ctx) => {
      const payload = parseOrThrow(act.payload, ctx.request.body, ['body']);
      const outcome = await perform(ctx, deps, act, payload, canonicalOrThrow(payload, ['body']));
      ctx.body = { ...outcome.result, ...landing(deps.log, outcome) };
    });
  }

  router.post('/api/v1/act', async (ctx) => {
    const request = parseOrThrow(ActRequestSchema, ctx.request.body, ['body']);
    if (request.act === null) {
      throw RefusalError.of('UNKNOWN_ACT', 'Name the act to perform in the act field.');
    }
    const act = findAct(request.act);
    if (!act || !act.via_act) {
      const acts = CATALOGUE.filter((candidate) => candidate.via_act).map((candidate) => candidate.name);
      // An act with a route of its own only (register, pom_challenge) exists: say where it is.
      const explanation = act?.rest
        ? `${act.name} is not performed here: ${act.rest.method} ${act.rest.path}.`
        : `There is no act named '${request.act}'.`;
      throw RefusalError.of('UNKNOWN_ACT', explanation, { acts });
    }
    const payload = parseOrThrow(act.payload, request.payload ?? {}, ['body', 'payload']);
    const signed_body = canonicalOrThrow({ ...request, payload }, ['body']);
    const pom =
      request.challenge_id !== null && request.puzzle_solution !== null
        ? { challenge_id: request.challenge_id, puzzle_solution: request.puzzle_solution }
        : undefined;
    const outcome = await perform(ctx, deps, act, payload, signed_body, pom);
    ctx.body = { act: act.name, result: outcome.result, ...landing(deps.log, outcome) };
  });
}

/** What an act answered: its result, where it landed on the ledger, and the first entry's text when at hand. */
interface Performed {
  result: Record<string, unknown>;
  ledger: { first_seq: number; last_seq: number } | null;
  first_entry_json?: string;
}

/**
 * Signature first, then the act: a write goes through the engine's queue and answers
 * once durable; a read is answered by the engine from the state at once (its gates
 * checked there, once) and touches nothing. A request refused for its nonce may be a
 * retry of one already answered: it gets that answer again (RetryBook).
 */
async function perform(
  ctx: Context,
  deps: ActRouteDeps,
  act: ActDefinition,
  payload: unknown,
  canonical_body: string,
  pom?: PomAnswer,
): Promise<Performed> {
  // A full queue is answered before the signature is checked, so the request's nonce stays good for the retry.
  const full = act.effect === 'write' ? deps.engine.queueFullRefusal() : undefined;
  if (full) throw new RefusalError(full);
  let actor: string | undefined;
  try {
    let auth: Authenticated;
    try {
      auth = deps.authenticator.authenticate(ctx, canonical_body, act.signer, payload);
    } catch (error) {
      const found = isNonceRefusal(error)
        ? await withinDeadline(deps.retries.find(ctx, canonical_body), deps.answer_deadline_ms)
        : undefined;
      if (!found) throw error;
      actor = found.agent_id;
      return replay(ctx, deps, act, payload, found);
    }
    actor = auth.actor;
    return await performAs(deps, act, auth, payload, pom);
  } finally {
    // An act under a rolling-window rule says what its actor has left, refused or not.
    if (act.allowance && actor !== undefined)
      ctx.set(rateLimitHeaders(act.allowance(deps.engine.state, actor, deps.clock())));
  }
}

async function performAs(
  deps: ActRouteDeps,
  act: ActDefinition,
  auth: Authenticated,
  payload: unknown,
  pom: PomAnswer | undefined,
): Promise<Performed> {
  const kept = deps.retries.toKeep(auth);
  if (act.effect === 'read') {
    deps.retries.answeredRead(kept);
    return performed(deps.engine.read(act, auth.actor, payload));
  }
  const submitted = deps.engine.submit({
    act: act.name,
    actor: auth.actor,
    payload,
    proof: auth.proof,
    consumed_nonce: auth.consumed_nonce,
    keep_answer: kept,
    ...(pom ? { pom } : {}),
  });
  deps.retries.submitted(kept, submitted);
  return performed(await withinDeadline(submitted, deps.answer_deadline_ms));
}

/**
 * The outcome, or 503 OUTCOME_PENDING once the deadline passes: the act stays in its
 * tick, and the very same request sent again waits for (or finds) the same outcome.
 */
async function withinDeadline<T>(outcome: Promise<T>, deadline_ms: number | undefined): Promise<T> {
  if (deadline_ms === undefined) return outcome;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const retry_after_seconds = 2;
      reject(
        new RefusalError(refuse('OUTCOME_PENDING', undefined, { retry_after_seconds }), {
          'Retry-After': String(retry_after_seconds),
        }),
      );
    }, deadline_ms);
  });
  try {
    return await Promise.race([outcome, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * The same signed request again: the answer it got, marked as given again, with a new
 * next nonce (the one on the lost answer may be lost too). Nothing is applied again; a
 * read, which changes nothing, is simply answered afresh, and so is not marked a replay:
 * its answer is today's, not the one that was lost.
 */
function replay(ctx: Context, deps: ActRouteDeps, act: ActDefinition, payload: unknown, found: Found): Performed {
  deps.authenticator.handOverNextNonce(ctx, found.agent_id);
  if (found.kind === 'read') return performed(deps.engine.read(act as ReadAct, found.agent_id, payload));
  ctx.set(HEADER_IDEMPOTENT_REPLAYED, 'true');
  const { outcome } = found;
  if (!outcome.ok) throw new RefusalError({ ...outcome, code: outcome.code as RefusalCode });
  return { result: outcome.result, ledger: outcome.ledger };
}

function performed(outcome: SubmitResult | ApplyOutcome): Performed {
  if (!outcome.ok) throw new RefusalError(outcome);
  const entries = 'entries' in outcome ? outcome.entries : [];
  const first = entries[0];
  const last = entries.at(-1);
  if (!first || !last) return { result: outcome.result, ledger: null };
  return { result: outcome.result, ledger: { first_seq: first.seq, last_seq: last.seq }, first_entry_json: first.json };
}

function isNonceRefusal(error: unknown): boolean {
  return error instanceof RefusalError && error.refusal.code === 'NONCE_INVALID';
}

/**
 * Where a write landed on the ledger, and the receipt of its first entry (the one that
 * carries the signed request); reads land nowhere. The answer is sent after the commit,
 * so the entry is durable and a checkpoint covering it can be signed now.
 */
function landing(
  log: TransparencyLog,
  outcome: Performed,
): { ledger?: { first_seq: number; last_seq: number }; receipt?: Receipt } {
  if (!outcome.ledger) return {};
  const receipt = log.receipt(outcome.ledger.first_seq, outcome.first_entry_json);
  return { ledger: outcome.ledger, ...(receipt ? { receipt } : {}) };
}
