import { canonicalJson, sha256Hex } from './canonical.js';
import { keyedCopy } from './keyed.js';
import type { EpochMs } from './time.js';
import type { Params } from './params.js';
import { createWorld, type WorldState } from './world/world_state.js';
import { restoreWorld, worldDigest, worldImage, type WorldImage } from './world/world_image.js';
import { createGovernance, type GovernanceState } from './governance/governance_state.js';
import { createPom, type PomState } from './pom/pom_state.js';
import { createAether, type AetherState } from './aether/aether_state.js';
import { createPayments, type PaymentsState } from './payments/payments_state.js';

export const GENESIS_PREV_HASH = '0'.repeat(64);

export interface AgentRecord {
  agent_id: string;
  handle: string;
  /** Current primary key; agent_id stays derived from the key it registered with. */
  pubkey: string;
  backup_pubkey: string | null;
  declared_runtime: string;
  registered_at_ms: EpochMs;
  /** How many times the primary key was rotated. */
  key_generation: number;
  /**
   * When this agent's first member act was applied (engine time); absent until then.
   * Only members who have acted count toward quorum (governance/electorate.ts).
   */
  first_acted_at_ms?: EpochMs;
}

export interface LedgerHead {
  seq: number;
  hash: string;
}

/** The whole society in memory. Everything here is restored from snapshot + log. */
export interface SocietyState {
  society_name: string;
  world_seed: string;
  founder_agent_id: string;
  params: Params;
  /** Which entries the ledger holds (genesis.ts LEDGER_REVISION), fixed at founding; 0 for a society founded before revisions. */
  ledger_revision: number;
  /** Time of the last applied action; engine time never goes backwards. */
  clock_ms: EpochMs;
  /** Number of the last tick applied. */
  tick: number;
  ledger_head: LedgerHead;
  agents: Map<string, AgentRecord>;
  agent_by_handle: Map<string, string>;
  /** Every key in use, primary or backup, mapped to its agent: a key serves one agent only. */
  agent_by_key: Map<string, string>;
  /** Every agent's first_acted_at_ms, ascending (engine time only moves on): an index, rebuilt on load. */
  first_member_acts_ms: EpochMs[];
  /** The grid world; made from the seed when the society is founded. */
  world: WorldState;
  /** Motions, law, Dispatches, reputation signals: plain JSON. */
  governance: GovernanceState;
  /** Proof of Machine challenges issued and not yet forgotten: plain JSON. */
  pom: PomState;
  /** Aether messages and the relay network: plain JSON. */
  aether: AetherState;
  /** The payment mode and what the processor's verified events recorded: plain JSON. */
  payments: PaymentsState;
}

/** Before genesis there is no seed and so no world: reaching for it then is a bug. */
const NO_WORLD_YET = new Proxy({} as WorldState, {
  get() {
    throw new Error('the world exists only after society_found');
  },
});

export function emptyState(): SocietyState {
  return {
    society_name: '',
    world_seed: '',
    founder_agent_id: '',
    params: {} as Params,
    ledger_revision: 0,
    clock_ms: 0,
    tick: 0,
    ledger_head: { seq: 0, hash: GENESIS_PREV_HASH },
    agents: new Map(),
    agent_by_handle: new Map(),
    agent_by_key: new Map(),
    first_member_acts_ms: [],
    world: NO_WORLD_YET,
    governance: createGovernance(0),
    pom: createPom(),
    aether: createAether(),
    payments: createPayments(),
  };
}

export function foundWorld(state: SocietyState, world_seed: string): void {
  state.world_seed = world_seed;
  state.world = createWorld(world_seed);
}

/** The serialisable form: maps become arrays sorted by key, indexes are rebuilt on load. */
export interface StateImage {
  format: 1;
  society_name: string;
  world_seed: string;
  founder_agent_id: string;
  params: Params;
  /** Absent for revision 0, so the images (and state hashes) of societies founded before revisions stay as they were. */
  ledger_revision?: number;
  clock_ms: number;
  tick: number;
  ledger_head: LedgerHead;
  agents: AgentRecord[];
  world: WorldImage | null;
  governance: GovernanceState;
  pom: PomState;
  aether: AetherState;
  payments: PaymentsState;
}

export function imageOf(state: Readonly<SocietyState>): StateImage {
  const agents = [...state.agents.values()].sort((a, b) => (a.agent_id < b.agent_id ? -1 : 1));
  return {
    format: 1,
    society_name: state.society_name,
    world_seed: state.world_seed,
    founder_agent_id: state.founder_agent_id,
    params: state.params,
    ...(state.ledger_revision ? { ledger_revision: state.ledger_revision } : {}),
    clock_ms: state.clock_ms,
    tick: state.tick,
    ledger_head: state.ledger_head,
    agents: agents.map((agent) => ({ ...agent })),
    world: state.world === NO_WORLD_YET ? null : worldImage(state.world),
    governance: structuredClone(state.governance),
    pom: structuredClone(state.pom),
    aether: structuredClone(state.aether),
    payments: structuredClone(state.payments),
  };
}

export function stateFromImage(image: StateImage): SocietyState {
  const state = emptyState();
  state.society_name = image.society_name;
  state.world_seed = image.world_seed;
  state.founder_agent_id = image.founder_agent_id;
  state.params = { ...image.params };
  state.ledger_revision = image.ledger_revision ?? 0;
  state.clock_ms = image.clock_ms;
  state.tick = image.tick;
  state.ledger_head = { ...image.ledger_head };
  for (const agent of image.agents) indexAgent(state, { ...agent });
  state.first_member_acts_ms = image.agents
    .flatMap((agent) => (agent.first_acted_at_ms === undefined ? [] : [agent.first_acted_at_ms]))
    .sort((a, b) => a - b);
  if (image.world) state.world = restoreWorld(image.world_seed, image.world);
  state.governance = structuredClone(image.governance);
  state.pom = structuredClone(image.pom);
  state.aether = structuredClone(image.aether);
  state.payments = structuredClone(image.payments);
  restoreKeyedRecords(state);
  return state;
}

/** A decoded image's records have Object.prototype again; the keyed ones are made as they were created (see keyed.ts). */
function restoreKeyedRecords(state: SocietyState): void {
  const { governance, pom, aether, payments } = state;
  governance.motions = keyedCopy(governance.motions);
  for (const motion of Object.values(governance.motions)) motion.ballots = keyedCopy(motion.ballots);
  governance.filings = keyedCopy(governance.filings);
  governance.modules = keyedCopy(governance.modules);
  governance.signals = keyedCopy(governance.signals);
  pom.challenges = keyedCopy(pom.challenges);
  aether.sends = keyedCopy(aether.sends);
  payments.members = keyedCopy(payments.members);
  payments.fulfilled = keyedCopy(payments.fulfilled);
  payments.customers = keyedCopy(payments.customers);
  payments.observers = keyedCopy(payments.observers);
  payments.grants = keyedCopy(payments.grants);
}

export function indexAgent(state: SocietyState, agent: AgentRecord): void {
  state.agents.set(agent.agent_id, agent);
  state.agent_by_handle.set(agent.handle, agent.agent_id);
  state.agent_by_key.set(agent.pubkey, agent.agent_id);
  if (agent.backup_pubkey) state.agent_by_key.set(agent.backup_pubkey, agent.agent_id);
}

/**
 * A digest of everything the state holds. Two replays of one log must agree on it;
 * it is computed on demand (restart checks, drills, tests), never per tick.
 */
export function stateHash(state: Readonly<SocietyState>): string {
  const { world, ...core } = imageOf(state);
  return sha256Hex(canonicalJson(core) + (world ? worldDigest(world) : ''));
}
