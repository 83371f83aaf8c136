import { toBase64url } from '../../client/base64url.js';
import { signText, type AgentKey } from '../../client/keys.js';
import { canonicalBody, sha256Hex, signingString } from '../../client/protocol.js';
import { ACT_ROUTES, GENERIC_ACT_ROUTE } from '../../engine/events/signed_routes.js';
import { Engine, findAct, MemoryStore, type SubmitResult } from '../../engine/index.js';

/** One act that was applied: who asked, and the seqs of the entries it wrote. */
export interface ScriptLine {
  act: string;
  actor: string;
  refused?: string;
  seqs?: [number, number];
}

export interface SignedEngine {
  engine: Engine;
  store: MemoryStore;
  now(): number;
  advance(ms: number): void;
  /** What was asked and applied, in order. */
  script: ScriptLine[];
  /** Signs the request as a client would (the route's canonical body, a nonce from the label and a counter) and submits it, a second later. */
  act(
    signer: AgentKey,
    actor: string,
    name: string,
    payload: Record<string, unknown>,
    pom?: { challenge_id: string; puzzle_solution: string },
  ): Promise<SubmitResult>;
  /** An act as a client performs it: with a Proof of Machine answer first when the act asks for one. */
  perform(signer: AgentKey, name: string, payload: Record<string, unknown>, actor?: string): Promise<SubmitResult>;
  /** The result of an act that must be applied; its refusal fails the caller. */
  must(outcome: Promise<SubmitResult>, what: string): Promise<Record<string, unknown>>;
}

/**
 * A real Engine over a MemoryStore on a clock of its own, fed signed requests as the
 * routes would pass them on: every entry that opens a request carries a proof a
 * verifier checks. Nothing random: the same calls make the same ledger, byte for byte.
 */
export async function signedEngine(options: {
  genesis: Record<string, unknown>;
  start_ms: number;
  /** Nonces are the first 40 base64url characters of SHA-256("<nonce_label>/<counter>"). */
  nonce_label: string;
}): Promise<SignedEngine> {
  const store = new MemoryStore();
  let now = options.start_ms;
  const engine = await Engine.open(store, options.genesis, {
    clock: () => now,
    on_fatal: (error) => {
      throw error;
    },
  });
  const script: ScriptLine[] = [];
  let nonce_counter = 0;
  const act: SignedEngine['act'] = async (signer, actor, name, payload, pom) => {
    now += 1000;
    const definition = findAct(name);
    if (!definition || definition.effect !== 'write') throw new Error(`no write act ${name}`);
    const parsed = definition.payload.parse(payload) as Record<string, unknown>;
    const via_act = definition.via_act;
    // An act with a route of its own that the host serves itself (grant_issue) is signed to that route.
    const path = via_act ? GENERIC_ACT_ROUTE : (definition.rest?.path ?? ACT_ROUTES[name as keyof typeof ACT_ROUTES]);
    if (!path) throw new Error(`${name} has no route to sign`);
    const body = canonicalBody(
      via_act
        ? {
            act: name,
            challenge_id: pom?.challenge_id ?? null,
            puzzle_solution: pom?.puzzle_solution ?? null,
            payload: parsed,
          }
        : parsed,
    );
    nonce_counter += 1;
    const nonce = toBase64url(Buffer.from(await sha256Hex(`${options.nonce_label}/${nonce_counter}`), 'hex')).slice(
      0,
      40,
    );
    const text = signingString({ method: 'POST', path, agent_id: actor, nonce, body_sha256: await sha256Hex(body) });
    const signature = await signText(signer, text);
    const outcome = await engine.submit({
      act: name,
      actor,
      payload: parsed,
      proof: { method: 'POST', path, nonce, body, signature },
      ...(pom ? { pom } : {}),
    });
    if (outcome.ok)
      script.push({
        act: name,
        actor,
        ...(outcome.entries.length > 0
          ? { seqs: [outcome.entries[0]!.seq, outcome.entries.at(-1)!.seq] as [number, number] }
          : {}),
      });
    return outcome;
  };
  const must: SignedEngine['must'] = async (outcome, what) => {
    const done = await outcome;
    if (!done.ok) throw new Error(`${what} refused: ${done.code} ${done.message}`);
    return done.result;
  };
  const withPom = async (signer: AgentKey, name: string, payload: Record<string, unknown>, actor: string) => {
    const asked = await must(act(signer, actor, 'pom_challenge', { intent: name }), 'pom_challenge');
    const challenge_id = asked.challenge_id as string;
    const puzzle_solution = engine.state.pom.challenges[challenge_id]!.answer;
    return act(signer, actor, name, payload, { challenge_id, puzzle_solution });
  };
  const perform: SignedEngine['perform'] = (signer, name, payload, actor = signer.agent_id) => {
    const definition = findAct(name);
    return definition?.effect === 'write' && definition.gates.pom
      ? withPom(signer, name, payload, actor)
      : act(signer, actor, name, payload);
  };
  return { engine, store, script, now: () => now, advance: (ms) => (now += ms), act, perform, must };
}
