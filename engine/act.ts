import type { z } from 'zod';
import type { Refusal } from './refusals.js';
import type { LedgerEvent, ProofForm } from './ledger.js';
import type { SocietyState } from './state.js';
import type { EpochMs } from './time.js';
import type { RollingAllowance } from './rolling_limit.js';

/**
 * Whose key must sign an act:
 * - primary: the actor's current primary key;
 * - payload_pubkey: the key in the payload itself (registration proves possession);
 * - backup: the actor's backup key (rotation of a lost primary);
 * - system: nobody; the engine logs it itself (genesis, timed closings).
 */
export type SignerRule = 'primary' | 'payload_pubkey' | 'backup' | 'system';

export interface ApplyContext {
  readonly state: SocietyState;
  readonly at_ms: EpochMs;
  /** The agent the act is for (the signer's id); 'system' for engine acts. */
  readonly actor: string;
  /**
   * The canonical body the actor signed, null for an act no signed request caused
   * (system acts, and engine-level callers that submit without a proof).
   */
  readonly signed_body: string | null;
  emit(event: LedgerEvent): void;
  /** Records AP the actor just spent; on a ledger that has them, an ap_spent entry follows the act's own (apply.ts). */
  noteApSpent(amount: number): void;
}

/**
 * What an apply function returns. A success may still be answered as a refusal
 * (`answer_as`): a Bedrock refusal is recorded on the P0 list, so it is applied and
 * logged, yet the caller is told no. `proof_form: 'digest'` puts the signed request on
 * the ledger with its body's SHA-256 in place of the body, for records that must not
 * republish what was refused yet must still prove who asked (default 'body').
 */
export type ApplyOutcome =
  | { ok: true; result: Record<string, unknown>; answer_as?: Refusal; proof_form?: ProofForm }
  | Refusal;

/** What a read act sees: the state between ticks, at the host's present time. */
export interface ReadContext {
  readonly state: Readonly<SocietyState>;
  readonly at_ms: EpochMs;
  readonly actor: string;
}

interface ActBase<P extends z.ZodType> {
  name: string;
  /** One or two sentences an agent can act on; shown in docs, tools and rules. */
  summary: string;
  /** Strict schema with declared defaults; its output is what gets signed and logged. */
  payload: P;
  signer: SignerRule;
  /** Accepted as {act: name} through POST /api/v1/act. */
  via_act: boolean;
  /** A dedicated route whose body is the payload itself. */
  rest?: { method: 'POST'; path: string };
  /** membership: active members only (402); pom: Proof of Machine; founder: the Founder key only (403). */
  gates: { membership: boolean; pom: boolean; founder?: boolean };
  /**
   * For tool clients (the MCP annotations), never read by the engine. idempotent: the same payload sent again
   * has no further effect (it is refused, or leaves the state as it was), so a client may retry it. destructive:
   * it may remove or replace something that exists rather than only add. Both default to false for a write act;
   * a read act changes nothing, so neither applies.
   */
  idempotent?: boolean;
  destructive?: boolean;
  /**
   * For an act under a rolling-window rule (motions a day, messages a minute): what the
   * actor has left at a time, which the act enforces and the answer reports in its
   * RateLimit headers.
   */
  allowance?: (state: Readonly<SocietyState>, actor: string, at_ms: EpochMs) => RollingAllowance;
}

/** An act that changes the state: queued, applied in a tick, logged and put on the ledger. */
export interface WriteAct<P extends z.ZodType = z.ZodType> extends ActBase<P> {
  effect: 'write';
  /**
   * Pure: reads ctx.state, and either refuses without touching anything or mutates
   * the state and emits events. It must check everything before its first change.
   */
  apply(ctx: ApplyContext, payload: z.output<P>): ApplyOutcome;
}

/**
 * An act that only looks (world_look, world_column, ...): signed, so it knows who
 * "me" is, but answered from the state at once; it changes nothing and is not logged.
 */
export interface ReadAct<P extends z.ZodType = z.ZodType> extends ActBase<P> {
  effect: 'read';
  read(ctx: ReadContext, payload: z.output<P>): ApplyOutcome;
}

export type ActDefinition<P extends z.ZodType = z.ZodType> = WriteAct<P> | ReadAct<P>;

export function defineAct<P extends z.ZodType>(definition: Omit<WriteAct<P>, 'effect'>): WriteAct<P> {
  return { effect: 'write', ...definition };
}

/** What a member act declares itself; defineMemberAct fills in the rest. */
export type MemberActDefinition<P extends z.ZodType> = Omit<WriteAct<P>, 'effect' | 'signer' | 'via_act' | 'gates'> & {
  /** Proof of Machine as well (bulletin posts, motions, Aether messages); false by default. */
  pom?: boolean;
};

/**
 * Most acts are a member's act: a write, signed with the member's primary key, accepted
 * through POST /api/v1/act, for active members only. Declaring one is then its name,
 * summary, payload and apply. The fields come out in the order defineAct gives them, so
 * the catalogue reads the same whichever form an act was declared in.
 */
export function defineMemberAct<P extends z.ZodType>(definition: MemberActDefinition<P>): WriteAct<P> {
  const { name, summary, payload, rest, pom = false, idempotent, destructive, allowance, apply } = definition;
  return {
    effect: 'write',
    name,
    summary,
    payload,
    signer: 'primary',
    via_act: true,
    ...(rest ? { rest } : {}),
    gates: { membership: true, pom },
    ...(idempotent === undefined ? {} : { idempotent }),
    ...(destructive === undefined ? {} : { destructive }),
    ...(allowance === undefined ? {} : { allowance }),
    apply,
  };
}

export function defineReadAct<P extends z.ZodType>(definition: Omit<ReadAct<P>, 'effect'>): ReadAct<P> {
  return { effect: 'read', ...definition };
}
