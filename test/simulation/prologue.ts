import { createHash, createPrivateKey, sign, type KeyObject } from 'node:crypto';
import { signingString } from '../../client/protocol.js';
import { keyFromSeed, type AgentKey } from '../../client/keys.js';
import {
  canonicalJson,
  Engine,
  sha256Hex,
  findAct,
  MemoryStore,
  replicatedTickOf,
  type LedgerHead,
  type ReplicatedTick,
  type TickCommit,
} from '../../engine/index.js';

/** Engine time at the simulation's start: every node's wall clock counts from here. */
export const SIMULATION_EPOCH_MS = Date.parse('2026-11-27T00:00:00Z');

/** A member the simulated clients act as: its key, and the same key ready for node:crypto's synchronous signing. */
export interface SimulatedMember {
  key: AgentKey;
  signing_key: KeyObject;
}

/**
 * The society every simulated run starts from, made once per process: founded, with its
 * members registered (each registration signed, as a follower checks it), as the ticks
 * the log begins with. Each node starts with an empty store and replays them, as a new
 * replica does. Keys come from fixed seeds, so every run signs the same bytes.
 */
export interface Prologue {
  genesis: Record<string, unknown>;
  members: SimulatedMember[];
  ticks: ReplicatedTick[];
}

let made: Promise<Prologue> | undefined;

export function prologue(members = 6): Promise<Prologue> {
  made ??= makePrologue(members);
  return made;
}

async function makePrologue(member_count: number): Promise<Prologue> {
  const founder = await keyFromSeed(seedOf('founder'));
  const genesis = {
    world_seed: 'simulation',
    founder_pubkey: founder.public_key,
    // Clients send far more than a member's usual minute: the limit is not what is under test.
    params: { aether_messages_per_minute_max: 1000 },
  };
  const store = new MemoryStore();
  const commits: TickCommit[] = [];
  store.on_commit = (commit) => commits.push(commit);
  const engine = await Engine.open(store, genesis, {
    clock: () => SIMULATION_EPOCH_MS,
    on_fatal: (error) => {
      throw error;
    },
  });
  const members: SimulatedMember[] = [];
  for (let index = 0; index < member_count; index++) {
    const seed = seedOf(`member ${index}`);
    const key = await keyFromSeed(seed);
    const signing_key = signingKeyOf(seed);
    const payload = findAct('register')!.payload.parse({ pubkey: key.public_key, handle: `sim${index}` });
    // Signed as a request is, so that a node following the log checks it as any member's act.
    const body = canonicalJson(payload);
    const nonce = `prologue${index}`.padEnd(40, '0');
    const path = '/api/v1/register';
    const text = signingString({ method: 'POST', path, agent_id: key.agent_id, nonce, body_sha256: sha256Hex(body) });
    const signature = sign(null, Buffer.from(text), signing_key).toString('base64url');
    const outcome = await engine.submit({
      act: 'register',
      actor: key.agent_id,
      payload,
      proof: { method: 'POST', path, nonce, body, signature },
    });
    if (!outcome.ok) throw new Error(`the simulation's member ${index} was refused: ${outcome.code}`);
    members.push({ key, signing_key });
  }
  await engine.drain();
  let head: LedgerHead = { seq: 0, hash: '0'.repeat(64) };
  const ticks: ReplicatedTick[] = [];
  for (const commit of commits) {
    const tick = replicatedTickOf(commit, head);
    if (!tick) continue;
    head = tick.ledger_head;
    ticks.push({ ...tick, consumed_nonces: [], kept_answers: [] });
  }
  return { genesis, members, ticks };
}

function seedOf(name: string): Uint8Array {
  return new Uint8Array(createHash('sha256').update(`tessera simulation ${name}`).digest());
}

/** The DER prefix of a PKCS #8 Ed25519 private key; the 32-byte seed follows it. */
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/** An Ed25519 key from its 32-byte seed, for node:crypto's synchronous signing. */
export function signingKeyOf(seed: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
}
