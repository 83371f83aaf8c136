import type { ApplyOutcome, ReadAct } from './act.js';
import { findAct } from './catalogue.js';
import { AP_SPENT_LEDGER_REVISION } from './genesis.js';
import { gateRefusal } from './governance/membership.js';
import { noteMemberAct } from './governance/electorate.js';
import { pomRefusal, type PomAnswer } from './pom/gate.js';
import { checkEmitted } from './events/emit_check.js';
import { invariant } from './invariant.js';
import {
  chainEntry,
  LEDGER_PROOF_BYTES_MAX,
  ledgerProof,
  ledgerProofBytes,
  type ChainedEntry,
  type LedgerEvent,
  type Proof,
} from './ledger.js';
import { refuse, type Refusal } from './refusals.js';
import type { SocietyState } from './state.js';
import type { EpochMs } from './time.js';

/** An action as the log keeps it: the payload is the schema's output, defaults filled. */
export interface LoggedAction {
  act: string;
  actor: string;
  payload: unknown;
  proof?: Proof;
  /** The Proof of Machine answer sent with the act, for acts that need one. */
  pom?: PomAnswer;
}

/** One tick of the log: the actions that were applied, in order, at one engine time. */
export interface TickRecord {
  tick: number;
  at_ms: EpochMs;
  actions: LoggedAction[];
}

export interface Applied {
  outcome: ApplyOutcome;
  entries: ChainedEntry[];
}

/**
 * Applies one action and chains its events. Live ticks and replays both come
 * through here, which is what makes a replay reproduce the ledger hash for hash.
 */
export function applyAction(state: SocietyState, action: LoggedAction, at_ms: EpochMs): Applied {
  const definition = findAct(action.act);
  invariant(definition && definition.effect === 'write', `not a write act in the engine: ${action.act}`);
  const gated = gateRefusal(state, definition, action.actor) ?? oversizedProofRefusal(action.proof);
  if (gated) return { outcome: gated, entries: [] };
  const challenge = definition.gates.pom
    ? pomRefusal(state, definition.name, action.actor, action.pom, at_ms)
    : undefined;
  if (challenge && 'ok' in challenge) return { outcome: challenge, entries: [] };
  const events: LedgerEvent[] = [];
  let ap_spent = 0;
  const outcome = definition.apply(
    {
      state,
      at_ms,
      actor: action.actor,
      signed_body: action.proof?.body ?? null,
      emit: (event) => events.push(event),
      noteApSpent: (amount) => (ap_spent += amount),
    },
    action.payload,
  );
  if (outcome.ok && challenge) challenge.used = true;
  if (!outcome.ok) {
    invariant(events.length === 0, `${action.act} emitted events and then refused`);
    return { outcome, entries: [] };
  }
  // A4: every applied act is public and recorded, as the event catalogue declares; the request that caused it is proved on its first entry.
  checkEmitted(definition, events, ap_spent);
  // Who has acted decides who counts toward quorum (governance/electorate.ts).
  if (definition.gates.membership && !outcome.answer_as) noteMemberAct(state, action.actor, at_ms);
  if (ap_spent > 0 && state.ledger_revision >= AP_SPENT_LEDGER_REVISION)
    events.splice(1, 0, apSpentEvent(action.actor, ap_spent, definition.name, state.ledger_head.seq + 1));
  const proof = action.proof && ledgerProof(action.proof, outcome.proof_form ?? 'body');
  const entries = events.map((event, index) => {
    const entry = chainEntry(state.ledger_head, at_ms, event, index === 0 ? proof : undefined);
    state.ledger_head = { seq: entry.seq, hash: entry.hash };
    return entry;
  });
  return { outcome, entries };
}

/** A request too large for its entry to stay under LEDGER_ENTRY_BYTES_MAX, refused before it changes anything. */
function oversizedProofRefusal(proof: Proof | undefined): Refusal | undefined {
  if (!proof) return undefined;
  // A UTF-16 unit takes at most 6 bytes once JSON-escaped (\u0001), so the common short request needs no measuring.
  const { body, path, nonce, method, signature } = proof;
  const ceiling = 6 * (body.length + path.length + nonce.length + method.length + signature.length) + 100;
  if (ceiling <= LEDGER_PROOF_BYTES_MAX) return undefined;
  const bytes = ledgerProofBytes(proof);
  if (bytes <= LEDGER_PROOF_BYTES_MAX) return undefined;
  return refuse(
    'PAYLOAD_TOO_LARGE',
    `This request would take ${bytes} bytes on the ledger (its signed body JSON-escaped, with path, nonce and signature); at most ${LEDGER_PROOF_BYTES_MAX}.`,
    { ledger_bytes: bytes, ledger_bytes_max: LEDGER_PROOF_BYTES_MAX },
  );
}

/**
 * The specification's ap_spent event: what an act cost its actor, right behind the
 * act's own entry (seq for_seq), which keeps the figure in its data as well. It is a
 * follow-up of the same signed request, so it carries no proof of its own.
 */
function apSpentEvent(actor: string, amount: number, act: string, for_seq: number): LedgerEvent {
  return { event_type: 'ap_spent', actor, data: { act, amount, for_seq } };
}

/**
 * Answers a read act (world_look, world_column, ...) from the state: the same gates
 * a write passes (membership, Founder), then its read. Nothing changes and nothing is
 * logged, so a read needs no queue and no tick.
 */
export function performRead(
  state: Readonly<SocietyState>,
  definition: ReadAct,
  actor: string,
  payload: unknown,
  at_ms: EpochMs,
): ApplyOutcome {
  return gateRefusal(state, definition, actor) ?? definition.read({ state, at_ms, actor }, payload);
}

/** Replays a logged tick; every action in it was applied once, so none may refuse now. */
export function replayTick(state: SocietyState, record: TickRecord): ChainedEntry[] {
  invariant(record.tick === state.tick + 1, `log gap: tick ${record.tick} after ${state.tick}`);
  invariant(record.at_ms >= state.clock_ms, `engine time went backwards at tick ${record.tick}`);
  const entries: ChainedEntry[] = [];
  for (const action of record.actions) {
    const { outcome, entries: produced } = applyAction(state, action, record.at_ms);
    invariant(outcome.ok, `replay diverged: ${action.act} refused at tick ${record.tick}`);
    entries.push(...produced);
  }
  state.tick = record.tick;
  state.clock_ms = record.at_ms;
  return entries;
}
