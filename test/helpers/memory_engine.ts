import { generateKey, type AgentKey } from '../../client/keys.js';
import {
  Engine,
  findAct,
  MemoryStore,
  type EngineOptions,
  type EngineStore,
  type ReadAct,
  type SubmitResult,
} from '../../engine/index.js';

export const ENGINE_START_MS = Date.parse('2026-11-21T10:00:00Z');

export interface EngineUnderTest<S extends EngineStore = MemoryStore> {
  engine: Engine;
  store: S;
  founder: AgentKey;
  /** The engine's clock: move it with advance. */
  now(): number;
  advance(ms: number): void;
}

export interface MemoryEngineOptions {
  founder?: AgentKey;
  genesis?: Record<string, unknown>;
  snapshot_every_ticks?: number;
  actions_per_tick_max?: number;
  on_tree_build?: EngineOptions['on_tree_build'];
  /** false: a follower of another writer's log (Engine.follow), not founded on open. */
  writer?: boolean;
}

/** The real Engine on a MemoryStore (or the store given): no HTTP; a failed commit fails the test. */
export async function memoryEngine(options?: MemoryEngineOptions): Promise<EngineUnderTest>;
export async function memoryEngine<S extends EngineStore>(
  options: MemoryEngineOptions & { store: S },
): Promise<EngineUnderTest<S>>;
export async function memoryEngine(
  options: MemoryEngineOptions & { store?: EngineStore } = {},
): Promise<EngineUnderTest<EngineStore>> {
  const founder = options.founder ?? (await generateKey());
  const store = options.store ?? new MemoryStore();
  let now = ENGINE_START_MS;
  const engine = await Engine.open(
    store,
    { world_seed: 'engine-tests', ...options.genesis, founder_pubkey: founder.public_key },
    {
      clock: () => now,
      ...(options.snapshot_every_ticks ? { snapshot_every_ticks: options.snapshot_every_ticks } : {}),
      ...(options.actions_per_tick_max ? { actions_per_tick_max: options.actions_per_tick_max } : {}),
      ...(options.on_tree_build ? { on_tree_build: options.on_tree_build } : {}),
      ...(options.writer === false ? { writer: false } : {}),
      on_fatal: (error) => {
        throw error;
      },
    },
  );
  return { engine, store, founder, now: () => now, advance: (ms) => (now += ms) };
}

/**
 * An act as a signed request hands it to the engine: the payload parsed by the act's
 * own schema (defaults filled, as the route does), no proof.
 */
export function submitAct(
  engine: Engine,
  act: string,
  actor: string,
  payload: Record<string, unknown>,
  pom?: { challenge_id: string; puzzle_solution: string },
): Promise<SubmitResult> {
  const definition = findAct(act);
  if (!definition) throw new Error(`no act ${act}`);
  return engine.submit({ act, actor, payload: definition.payload.parse(payload), ...(pom ? { pom } : {}) });
}

/** A Proof of Machine act, answered from the engine's own record of the challenge (HTTP tests solve it for real). */
export async function submitWithPom(
  engine: Engine,
  act: string,
  actor: string,
  payload: Record<string, unknown>,
): Promise<SubmitResult> {
  const asked = await submitAct(engine, 'pom_challenge', actor, { intent: act });
  if (!asked.ok) throw new Error(`pom_challenge refused: ${asked.code}`);
  const challenge_id = asked.result.challenge_id as string;
  const puzzle_solution = engine.state.pom.challenges[challenge_id]!.answer;
  return submitAct(engine, act, actor, payload, { challenge_id, puzzle_solution });
}

/** A read act, as the act route asks the engine for it. */
export function readAct(engine: Engine, act: string, actor: string, payload: Record<string, unknown>) {
  const definition = findAct(act);
  if (!definition || definition.effect !== 'read') throw new Error(`no read act ${act}`);
  return engine.read(definition as ReadAct, actor, definition.payload.parse(payload));
}

/** A member registered with a fresh key. */
export async function registered(engine: Engine, handle: string): Promise<AgentKey> {
  const key = await generateKey();
  const outcome = await submitAct(engine, 'register', key.agent_id, { pubkey: key.public_key, handle });
  if (!outcome.ok) throw new Error(`register ${handle} refused: ${outcome.code}`);
  return key;
}

export function succeeded(outcome: SubmitResult | ReturnType<Engine['read']>): Record<string, unknown> {
  if (!outcome.ok) throw new Error(`refused: ${outcome.code} ${outcome.message}`);
  return outcome.result;
}
