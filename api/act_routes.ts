import type { Routes } from './routes.js';
import type { Context } from 'koa';
import { z } from 'zod';
import {
  type ActDefinition,
  CATALOGUE,
  findAct,
  type PomAnswer,
  type Engine,
  type SubmitResult,
} from '../engine/index.js';
import type { Authenticated, Authenticator } from './authenticate.js';
import { rateLimitHeaders } from './address_limit.js';
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
      throw RefusalError.of('UNKNOWN_ACT', `There is no act named '${request.act}'.`, { acts });
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

type Performed = { result: Record<string, unknown>; entries?: Extract<SubmitResult, { ok: true }>['entries'] };

/**
 * Signature first, then the act: a write goes through the engine's queue and answers
 * once durable; a read is answered by the engine from the state at once (its gates
 * checked there, once) and touches nothing.
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
  const auth = deps.authenticator.authenticate(ctx, canonical_body, act.signer, payload);
  try {
    return await performAs(deps, act, auth, payload, pom);
  } finally {
    // An act under a rolling-window rule says what its actor has left, refused or not.
    if (act.allowance) ctx.set(rateLimitHeaders(act.allowance(deps.engine.state, auth.actor, deps.clock())));
  }
}

async function performAs(
  deps: ActRouteDeps,
  act: ActDefinition,
  auth: Authenticated,
  payload: unknown,
  pom: PomAnswer | undefined,
): Promise<Performed> {
  const outcome =
    act.effect === 'read'
      ? deps.engine.read(act, auth.actor, payload)
      : await deps.engine.submit({
          act: act.name,
          actor: auth.actor,
          payload,
          proof: auth.proof,
          consumed_nonce: auth.consumed_nonce,
          ...(pom ? { pom } : {}),
        });
  if (!outcome.ok) throw new RefusalError(outcome);
  return outcome;
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
  if (!outcome.entries || outcome.entries.length === 0) return {};
  const first = outcome.entries[0]!;
  const last = outcome.entries[outcome.entries.length - 1]!;
  const receipt = log.receipt(first.seq, first.json);
  return { ledger: { first_seq: first.seq, last_seq: last.seq }, ...(receipt ? { receipt } : {}) };
}
