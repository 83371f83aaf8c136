import { beforeAll, describe, expect, it } from 'vitest';
import { generateKey, type AgentKey } from '../client/keys.js';
import { tileIndex, type SubmitResult, type WorldState } from '../engine/index.js';
import { findTile, stepInto } from './helpers/world.js';
import * as harness from './helpers/memory_engine.js';
import { moveAgent } from '../engine/world/agent_places.js';

/**
 * The acts driven through the real Engine on the memory store, beside the HTTP tests:
 * what each answers, which refusal code it gives, and what it puts on the ledger. The
 * engine is given payloads as the routes hand them over (parsed by the act's schema).
 */
let under: harness.EngineUnderTest;
let ada: AgentKey;
let bob: AgentKey;

beforeAll(async () => {
  const params = { ap_at_registration: 300, ap_cap: 1000 };
  under = await harness.memoryEngine({ genesis: { world_seed: 'engine-acts', params } });
  ada = await harness.registered(under.engine, 'ada');
  bob = await harness.registered(under.engine, 'bob');
});

type Payload = Record<string, unknown>;
type Pom = { challenge_id: string; puzzle_solution: string };
type LedgerEntry = { seq: number; event_type: string; actor: string; data: Record<string, any> };

const act = (name: string, actor: AgentKey | string, payload: Payload, pom?: Pom) =>
  harness.submitAct(under.engine, name, typeof actor === 'string' ? actor : actor.agent_id, payload, pom);
const actWithPom = (name: string, actor: AgentKey, payload: Payload) =>
  harness.submitWithPom(under.engine, name, actor.agent_id, payload);
const answer = harness.succeeded;

/** The entries an applied act produced, each checked to be what the store now serves. */
function entriesOf(outcome: SubmitResult): LedgerEntry[] {
  if (!outcome.ok) throw new Error(`refused: ${outcome.code}`);
  return outcome.entries.map((entry) => {
    expect(under.store.ledgerJson(entry.seq)).toBe(entry.json);
    return JSON.parse(entry.json) as LedgerEntry;
  });
}

const firstEntry = (outcome: SubmitResult): LedgerEntry => entriesOf(outcome)[0]!;

/** Expects a refusal with this code that changed nothing on the ledger. */
async function refusedWith(submitting: Promise<SubmitResult>, code: string): Promise<void> {
  const head = under.engine.state.ledger_head.seq;
  const outcome = await submitting;
  expect(outcome.ok ? 'applied' : outcome.code).toBe(code);
  expect(under.engine.state.ledger_head.seq).toBe(head);
}

const world = (): WorldState => under.engine.state.world;

/** Test arrangement only: puts an agent on a tile directly, as if it had walked there. */
function standOn(key: AgentKey, x: number, y: number): void {
  moveAgent(world(), world().agents.get(key.agent_id)!, x, y);
}

/** A plains tile with a neighbour of the biome, and the direction of that neighbour. */
function plainsBeside(biome: string): { x: number; y: number; toward: string } {
  const tile = findTile(world(), (x, y, here) => here === 'plains' && stepInto(world(), x, y, biome) !== undefined);
  return { ...tile, toward: stepInto(world(), tile.x, tile.y, biome)! };
}

describe('register', () => {
  it('registers a key under a free handle: the agent, its spawn position, one agent_registered entry', async () => {
    const key = await generateKey();
    const outcome = await act('register', key, { pubkey: key.public_key, handle: 'carol' });
    expect(answer(outcome)).toMatchObject({ agent_id: key.agent_id, handle: 'carol', backup_key_registered: false });
    const data = { handle: 'carol', pubkey: key.public_key };
    expect(firstEntry(outcome)).toMatchObject({ event_type: 'agent_registered', actor: key.agent_id, data });
    expect(under.engine.state.agent_by_handle.get('carol')).toBe(key.agent_id);
  });

  it('refuses a taken handle (HANDLE_TAKEN) and a key already registered (KEY_TAKEN)', async () => {
    const key = await generateKey();
    await refusedWith(act('register', key, { pubkey: key.public_key, handle: 'ada' }), 'HANDLE_TAKEN');
    await refusedWith(act('register', ada, { pubkey: ada.public_key, handle: 'ada-again' }), 'KEY_TAKEN');
  });
});

describe('the membership gate', () => {
  it('refuses member writes and reads alike to the Founder and to an unknown agent: MEMBERSHIP_REQUIRED', async () => {
    const stranger = await generateKey();
    for (const actor of [under.founder, stranger]) {
      await refusedWith(act('world_move', actor, { path: ['n'] }), 'MEMBERSHIP_REQUIRED');
      await refusedWith(act('vote_cast', actor, { motion_id: 'M-0001-abcd', choice: 'aye' }), 'MEMBERSHIP_REQUIRED');
      const read = harness.readAct(under.engine, 'world_look', actor.agent_id, {});
      expect(read.ok ? 'answered' : read.code).toBe('MEMBERSHIP_REQUIRED');
    }
  });
});

describe('world acts', () => {
  it('world_move steps onto plains for its AP and records from, path and to', async () => {
    const { toward, ...start } = plainsBeside('plains');
    standOn(ada, start.x, start.y);
    const outcome = await act('world_move', ada, { path: [toward] });
    const data = { from: start, path: [toward], ap_spent: 1 };
    expect(firstEntry(outcome)).toMatchObject({ event_type: 'agent_moved', actor: ada.agent_id, data });
  });

  it('world_move refuses water (IMPASSABLE) and a step off the edge of the world (OUT_OF_BOUNDS)', async () => {
    const shore = plainsBeside('water');
    standOn(ada, shore.x, shore.y);
    await refusedWith(act('world_move', ada, { path: [shore.toward] }), 'IMPASSABLE');
    standOn(ada, 0, 0);
    await refusedWith(act('world_move', ada, { path: ['w'] }), 'OUT_OF_BOUNDS');
  });

  it('world_dig takes the top of a column and records its yield; the air above has nothing to dig', async () => {
    const spot = findTile(world(), (_x, _y, here) => here === 'plains');
    standOn(bob, spot.x, spot.y);
    const z = world().surface[tileIndex(spot.x, spot.y)]!;
    const outcome = await act('world_dig', bob, { x: spot.x, y: spot.y });
    expect(answer(outcome)).toMatchObject({ z, yield: 'dirt' });
    expect(firstEntry(outcome)).toMatchObject({ event_type: 'terrain_dug', data: { ...spot, z, yield: 'dirt' } });
    await refusedWith(act('world_dig', bob, { x: spot.x, y: spot.y, z: z + 2 }), 'NOTHING_TO_DIG');
  });
});

describe('read acts through Engine.read', () => {
  it('answers world_look from the live state with the member position, and neither ticks nor writes', () => {
    const [tick, head] = [under.engine.state.tick, under.store.ledgerHead()];
    const agent = world().agents.get(bob.agent_id)!;
    const looked = answer(harness.readAct(under.engine, 'world_look', bob.agent_id, { radius: 1 }));
    expect(looked).toMatchObject({ agent_id: bob.agent_id, position: { x: agent.x, y: agent.y } });
    expect(looked.around).toHaveLength(9);
    expect([under.engine.state.tick, under.store.ledgerHead()]).toEqual([tick, head]);
  });
});

describe('governance acts', () => {
  let motion_id: string;
  const title = 'Roads for all';

  it('motion_propose needs Proof of Machine (POM_REQUIRED) and, with it, files a draft: motion_filed', async () => {
    await refusedWith(act('motion_propose', ada, { title }), 'POM_REQUIRED');
    const outcome = await actWithPom('motion_propose', ada, { title, body: 'Why not.' });
    motion_id = answer(outcome).motion_id as string;
    expect(answer(outcome)).toMatchObject({ status: 'draft' });
    const data = { motion_id, title };
    expect(firstEntry(outcome)).toMatchObject({ event_type: 'motion_filed', actor: ada.agent_id, data });
  });

  it('motion_cosponsor adds a cosponsor once (ALREADY_COSPONSORED after), never the author', async () => {
    const outcome = await act('motion_cosponsor', bob, { motion_id });
    const data = { agent_id: bob.agent_id, motion_id };
    expect(firstEntry(outcome)).toMatchObject({ event_type: 'motion_cosponsored', data });
    await refusedWith(act('motion_cosponsor', bob, { motion_id }), 'ALREADY_COSPONSORED');
    await refusedWith(act('motion_cosponsor', ada, { motion_id }), 'ALREADY_COSPONSORED');
  });

  it('vote_cast refuses a draft (MOTION_CLOSED) and an unknown motion; motion_open is the author alone', async () => {
    await refusedWith(act('vote_cast', bob, { motion_id, choice: 'aye' }), 'MOTION_CLOSED');
    await refusedWith(act('vote_cast', bob, { motion_id: 'M-9999-abcd', choice: 'aye' }), 'UNKNOWN_MOTION');
    await refusedWith(act('motion_open', bob, { motion_id }), 'NOT_AUTHOR');
  });

  it('motion_open opens the draft with its quorum, once (MOTION_NOT_DRAFT); then vote_cast records', async () => {
    const opened = await act('motion_open', ada, { motion_id });
    expect(answer(opened)).toMatchObject({ motion_id, status: 'open' });
    const quorum = { motion_id, quorum_required: expect.any(Number) };
    expect(firstEntry(opened)).toMatchObject({ event_type: 'motion_opened', data: quorum });
    await refusedWith(act('motion_open', ada, { motion_id }), 'MOTION_NOT_DRAFT');
    const voted = await act('vote_cast', bob, { motion_id, choice: 'aye' });
    const ballot = { motion_id, choice: 'aye' };
    expect(firstEntry(voted)).toMatchObject({ event_type: 'vote_cast', actor: bob.agent_id, data: ballot });
  });

  it('closes the motion by a system act once engine time passes its window, and then refuses votes', async () => {
    const head = under.engine.state.ledger_head.seq;
    under.advance(under.engine.state.params.voting_window_seconds * 1000 + 1000);
    await under.engine.pulse();
    const closing = [...under.store.ledgerEntries(head + 1)].map(({ json }) => JSON.parse(json) as LedgerEntry);
    expect(closing.find((entry) => entry.data.motion_id === motion_id)).toMatchObject({ actor: 'system' });
    expect(under.engine.state.governance.motions[motion_id]!.status).not.toBe('open');
    await refusedWith(act('vote_cast', ada, { motion_id, choice: 'nay' }), 'MOTION_CLOSED');
  });
});

describe('aether and bulletin', () => {
  it('aether_send needs Proof of Machine and, with it, broadcasts: aether_sent with its publication time', async () => {
    await refusedWith(act('aether_send', bob, { body: 'hello' }), 'POM_REQUIRED');
    const outcome = await actWithPom('aether_send', bob, { body: 'hello, society' });
    expect(answer(outcome)).toMatchObject({ route: 'global', publish_at: expect.any(String) });
    const data = { route: 'global' };
    expect(firstEntry(outcome)).toMatchObject({ event_type: 'aether_sent', actor: bob.agent_id, data });
  });

  it('bulletin_post pins a notice; a challenge issued for another act fails it (POM_FAILED)', async () => {
    const outcome = await actWithPom('bulletin_post', bob, { title: 'Notice', body: 'Meet at the ruins.' });
    const data = { title: 'Notice' };
    expect(firstEntry(outcome)).toMatchObject({ event_type: 'bulletin_posted', actor: bob.agent_id, data });
    const challenge_id = answer(await act('pom_challenge', bob, { intent: 'aether_send' })).challenge_id as string;
    const puzzle_solution = under.engine.state.pom.challenges[challenge_id]!.answer;
    await refusedWith(act('bulletin_post', bob, { body: 'again' }, { challenge_id, puzzle_solution }), 'POM_FAILED');
  });
});

// standOn places agents outside the log, so this society does not replay; determinism.test.ts replays.
describe('the ledger the acts wrote', () => {
  it('is in the store whole once drained: the durable head is the engine head, entries chained', async () => {
    await under.engine.drain();
    expect(under.store.ledgerHead()).toEqual(under.engine.state.ledger_head);
    let prev_hash = '0'.repeat(64);
    for (const { seq, json } of under.store.ledgerEntries(1)) {
      const entry = JSON.parse(json) as LedgerEntry & { prev_hash: string; hash: string };
      expect([entry.seq, entry.prev_hash]).toEqual([seq, prev_hash]);
      prev_hash = entry.hash;
    }
    expect(prev_hash).toBe(under.store.ledgerHead().hash);
  });
});
