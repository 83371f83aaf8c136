import { timingSafeEqual } from 'node:crypto';
import type { Context } from 'koa';
import { LRUCache } from 'lru-cache';
import { HEADER_AGENT_ID, HEADER_NONCE, HEADER_SIGNATURE } from '../../client/protocol.js';
import {
  type AnswerToKeep,
  expiryKeyPrefix,
  type KeptAnswerRecord,
  type KeptOutcome,
  keptOutcome,
  type SubmitResult,
  sha256Hex,
} from '../../engine/index.js';
import { type Authenticated, requestSigningString } from '../authenticate.js';
import { nonceExpiryMs } from '../nonces.js';

/** Marks an answer given again to a retried request (the name Stripe's API uses for the same thing). */
export const HEADER_IDEMPOTENT_REPLAYED = 'Idempotent-Replayed';

/** Signed reads retried: at most this many remembered (they change nothing, so a retry is simply answered afresh). */
const recent_reads_max = 100_000;

/** A retried request as it came in: who, which nonce, and what it signed. */
interface Presented {
  agent_id: string;
  key: string;
  request_sha256: string;
  signature: string;
}

/** What a retry finds: the original outcome (a write), or leave to answer a read again. */
export type Found = { kind: 'outcome'; outcome: KeptOutcome; agent_id: string } | { kind: 'read'; agent_id: string };

/**
 * Answers kept for retried signed requests. A write's answer is kept by the engine in the
 * commit that spends its nonce (the store's answers table, until the nonce expires), and
 * held here while its tick is running, so a retry that arrives meanwhile waits for the
 * same outcome instead of being refused. A signed read changes nothing: a retry of one is
 * answered afresh, which this remembers (in memory, bounded) so that only the same request
 * gets that. A request is the same when its signing string (method, path, agent, nonce,
 * body hash) and its signature are; a different body under a spent nonce is still refused.
 */
export class RetryBook {
  private readonly in_flight = new Map<string, { identity: AnswerToKeep; answer: Promise<SubmitResult> }>();
  private readonly recent_reads: LRUCache<string, AnswerToKeep>;

  constructor(
    private readonly store: { keptAnswer(key: string): KeptAnswerRecord | undefined },
    nonce_ttl_seconds: number,
    reads_remembered_max = recent_reads_max,
  ) {
    this.recent_reads = new LRUCache({ max: reads_remembered_max, ttl: nonce_ttl_seconds * 1000 });
  }

  /** What the engine is to keep of a write's answer, from its authentication. */
  toKeep(auth: Authenticated): AnswerToKeep {
    const expires_at_ms = auth.consumed_nonce.expires_at_ms;
    return {
      key: keyOf(expires_at_ms, auth.actor, auth.proof.nonce),
      expires_at_ms,
      request_sha256: auth.request_sha256,
      signature: auth.proof.signature,
    };
  }

  /** A write submitted: a retry meanwhile waits for this outcome. */
  submitted(kept: AnswerToKeep, answer: Promise<SubmitResult>): void {
    this.in_flight.set(kept.key, { identity: kept, answer });
    // Once answered, the store holds it: the tick's commit kept it before the answer was given.
    void answer.finally(() => this.in_flight.delete(kept.key));
  }

  /** A signed read answered: the same request again is answered again. */
  answeredRead(kept: AnswerToKeep): void {
    this.recent_reads.set(kept.key, kept);
  }

  /** What a request refused for its nonce finds: the same request's outcome, or nothing (it stays refused). */
  async find(ctx: Context, canonical_body: string): Promise<Found | undefined> {
    const presented = presentedOf(ctx, canonical_body);
    if (!presented) return undefined;
    const { agent_id, key } = presented;
    const running = this.in_flight.get(key);
    if (running)
      return same(running.identity, presented)
        ? { kind: 'outcome', outcome: keptOutcome(await running.answer), agent_id }
        : undefined;
    const read = this.recent_reads.get(key);
    if (read) return same(read, presented) ? { kind: 'read', agent_id } : undefined;
    const kept = this.store.keptAnswer(key);
    return kept && same(kept, presented) ? { kind: 'outcome', outcome: kept.outcome, agent_id } : undefined;
  }
}

function keyOf(expires_at_ms: number, agent_id: string, nonce: string): string {
  return `${expiryKeyPrefix(expires_at_ms)}/${agent_id}/${nonce}`;
}

/** The request's identity from its headers and body; undefined when they are not a signed request's shape. */
function presentedOf(ctx: Context, canonical_body: string): Presented | undefined {
  const agent_id = ctx.get(HEADER_AGENT_ID);
  const nonce = ctx.get(HEADER_NONCE);
  const signature = ctx.get(HEADER_SIGNATURE);
  const expires_at_ms = nonceExpiryMs(nonce);
  if (expires_at_ms === undefined || agent_id === '' || signature === '') return undefined;
  const request_sha256 = sha256Hex(requestSigningString(ctx, agent_id, nonce, canonical_body));
  return { agent_id, key: keyOf(expires_at_ms, agent_id, nonce), request_sha256, signature };
}

/** The same request: the same signing string and the same signature, compared in constant time. */
function same(kept: { request_sha256: string; signature: string }, presented: Presented): boolean {
  return equalText(kept.request_sha256, presented.request_sha256) && equalText(kept.signature, presented.signature);
}

function equalText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}
