import { beforeAll, describe, expect, it } from 'vitest';
import { generateKey, type AgentKey } from '../client/keys.js';
import { tileIndex, type SubmitResult, type WorldState } from '../engine/index.js';
import { findTile, stepInto } from './helpers/world.js';
import { memoryEngine, readAct, registered, submitAct, submitWithPom, succeeded, type EngineUnderTest } from './helpers/memory_engine.js';

/**
 * The acts driven through the real Engine on the memory store, beside the HTTP tests:
 * what each answers, which refusal code it gives, and what it puts on the ledger. The
 * engine is given payloads as the routes hand them over (parsed by the act's schema).
 */
let under: EngineUnderTest;
let ada: AgentKey;
let bob: AgentKey;

beforeAll(async () => {
  under = await memoryEngine({ genesis: { world_seed: 'engine-acts', params: { ap_at_registration: 300, ap_cap: 1000 } } });
  ada = await registered(under.engine, 'ada');
  bob = await registered(under.engine, 'bob');
});

type LedgerEntry = { seq: number; event_type: string; actor: string; data: Record<string, any> };

/** The entries an applied act produced, as the store now serves them. */
function entriesOf(outcome: SubmitResult): LedgerEntry[] {
  if (!outcome.ok) throw new Error(`refused: ${outcome.code}`);
  return outcome.entries.map((entry) => {
    expect(under.store.ledgerJson(entry.seq)).toBe(entry.json);
    return JSON.parse(entry.json) as LedgerEntry;
  });
}

/** Submits and expects a refusal that changed nothing: same head, same tick, no entry. */
async function refusedWith(submitting: Promise<SubmitResult>, code: string): Promise<void> {
  const head = under.engine.state.ledger_head.seq;
  const outcome = await submitting;
  expect(outcome.ok ? 'applied' : outcome.code).toBe(code);
  expect(under.engine.state.ledger_head.seq).toBe(head);
}

const world = (): WorldState => under.engine.state.world;

/** Test arrangement only: puts an agent on a tile directly, as if it had walked there. */
function standOn(key: AgentKey, x: number, y: number): void {
  const agent = world().agents.get(key.agent_id)!;
  agent.x = x;
  agent.y = y;
}

describe('register', () => {
  it('registers a key under a free handle: the agent, its spawn position, one agent_registered entry', async () => {
    const key = await generateKey();
    const outcome = await submitAct(under.engine, 'register', key.agent_id, { pubkey: key.public_key, handle: 'carol' });
    expect(succeeded(outcome)).toMatchObject({ agent_id: key.agent_id, handle: 'carol', backup_key_registered: false });
    const [entry] = entriesOf(outcome);
    expect(entry).toMatchObject({ event_type: 'agent_registered', actor: key.agent_id, data: { handle: 'carol', pubkey: key.public_key } });
    expect(under.engine.state.agent_by_handle.get('carol')).toBe(key.agent_id);
  });

  it('refuses a taken handle (HANDLE_TAKEN) and a key already registered (KEY_TAKEN)', async () => {
    const key = await generateKey();
    await refusedWith(submitAct(under.engine, 'register', key.agent_id, { pubkey: key.public_key, handle: 'ada' }), 'HANDLE_TAKEN');
    await refusedWith(submitAct(under.engine, 'register', ada.agent_id, { pubkey: ada.public_key, handle: 'ada-again' }), 'KEY_TAKEN');
  });
});

describe('the membership gate', () => {
  it('refuses member acts, writes and reads alike, to the Founder key and to an unknown agent: MEMBERSHIP_REQUIRED', async () => {
    const stranger = await generateKey();
    for (const actor of [under.founder.agent_id, stranger.agent_id]) {
      await refusedWith(submitAct(under.engine, 'world_move', actor, { path: ['n'] }), 'MEMBERSHIP_REQUIRED');
      await refusedWith(submitAct(under.engine, 'vote_cast', actor, { motion_id: 'M-0001-abcd', choice: 'aye' }), 'MEMBERSHIP_REQUIRED');
      const read = readAct(under.engine, 'world_look', actor, {});
      expect(read.ok ? 'answered' : read.code).toBe('MEMBERSHIP_REQUIRED');
    }
  });
});

describe('world acts', () => {
  it('world_move steps onto plains for its AP and records from, path and to', async () => {
    const start = findTile(world(), (x, y, here) => here === 'plains' && stepInto(world(), x, y, 'plains') !== undefined);
    standOn(ada, start.x, start.y);
    const direction = stepInto(world(), start.x, start.y, 'plains')!;
    const outcome = await submitAct(under.engine, 'world_move', ada.agent_id, { path: [direction] });
    const [entry] = entriesOf(outcome);
    expect(entry).toMatchObject({ event_type: 'agent_moved', actor: ada.agent_id, data: { from: start, path: [direction], ap_spent: 1 } });
    expect(succeeded(outcome)).toBeDefined();
  });

  it('world_move refuses water (IMPASSABLE) and a step off the edge of the world (OUT_OF_BOUNDS)', async () => {
    const shore = findTile(world(), (x, y, here) => here === 'plains' && stepInto(world(), x, y, 'water') !== undefined);
    standOn(ada, shore.x, shore.y);
    await refusedWith(submitAct(under.engine, 'world_move', ada.agent_id, { path: [stepInto(world(), shore.x, shore.y, 'water')!] }), 'IMPASSABLE');
    standOn(ada, 0, 0);
    await refusedWith(submitAct(under.engine, 'world_move', ada.agent_id, { path: ['w'] }), 'OUT_OF_BOUNDS');
  });

  it('world_dig takes the top of a column and records its yield; air above it has nothing to dig (NOTHING_TO_DIG)', async () => {
    const spot = findTile(world(), (_x, _y, here) => here === 'plains');
    standOn(bob, spot.x, spot.y);
    const z = world().surface[tileIndex(spot.x, spot.y)]!;
    const outcome = await submitAct(under.engine, 'world_dig', bob.agent_id, { x: spot.x, y: spot.y });
    expect(succeeded(outcome)).toMatchObject({ z, yield: 'dirt' });
    expect(entriesOf(outcome)[0]).toMatchObject({ event_type: 'terrain_dug', data: { x: spot.x, y: spot.y, z, yield: 'dirt' } });
    await refusedWith(submitAct(under.engine, 'world_dig', bob.agent_id, { x: spot.x, y: spot.y, z: z + 2 }), 'NOTHING_TO_DIG');
  });
});

describe('read acts through Engine.read', () => {
  it('answers world_look from the live state with the member position, and neither ticks nor writes', () => {
    const [tick, head] = [under.engine.state.tick, under.store.ledgerHead()];
    const agent = world().agents.get(bob.agent_id)!;
    const answer = succeeded(readAct(under.engine, 'world_look', bob.agent_id, { radius: 1 }));
    expect(answer).toMatchObject({ agent_id: bob.agent_id, position: { x: agent.x, y: agent.y } });
    expect(answer.around).toHaveLength(9);
    expect([under.engine.state.tick, under.store.ledgerHead()]).toEqual([tick, head]);
  });
});

describe('governance acts', () => {
  let motion_id: string;

  it('motion_propose needs Proof of Machine (POM_REQUIRED) and, with it, files a draft: motion_filed', async () => {
    await refusedWith(submitAct(under.engine, 'motion_propose', ada.agent_id, { title: 'Roads for all' }), 'POM_REQUIRED');
    const outcome = await submitWithPom(under.engine, 'motion_propose', ada.agent_id, { title: 'Roads for all', body: 'Why not.' });
    motion_id = succeeded(outcome).motion_id as string;
    expect(succeeded(outcome)).toMatchObject({ status: 'draft' });
    expect(entriesOf(outcome)[0]).toMatchObject({ event_type: 'motion_filed', actor: ada.agent_id, data: { motion_id, title: 'Roads for all' } });
  });

  it('motion_cosponsor adds a cosponsor once (ALREADY_COSPONSORED after), never the author', async () => {
    const outcome = await submitAct(under.engine, 'motion_cosponsor', bob.agent_id, { motion_id });
    expect(entriesOf(outcome)[0]).toMatchObject({ event_type: 'motion_cosponsored', data: { agent_id: bob.agent_id, motion_id } });
    await refusedWith(submitAct(under.engine, 'motion_cosponsor', bob.agent_id, { motion_id }), 'ALREADY_COSPONSORED');
    await refusedWith(submitAct(under.engine, 'motion_cosponsor', ada.agent_id, { motion_id }), 'ALREADY_COSPONSORED');
  });

  it('vote_cast refuses a draft (MOTION_CLOSED) and an unknown motion (UNKNOWN_MOTION); motion_open is the author alone (NOT_AUTHOR)', async () => {
    await refusedWith(submitAct(under.engine, 'vote_cast', bob.agent_id, { motion_id, choice: 'aye' }), 'MOTION_CLOSED');
    await refusedWith(submitAct(under.engine, 'vote_cast', bob.agent_id, { motion_id: 'M-9999-abcd', choice: 'aye' }), 'UNKNOWN_MOTION');
    await refusedWith(submitAct(under.engine, 'motion_open', bob.agent_id, { motion_id }), 'NOT_AUTHOR');
  });

  it('motion_open opens the draft with its quorum (motion_opened), once (MOTION_NOT_DRAFT), and vote_cast then records a ballot', async () => {
    const opened = await submitAct(under.engine, 'motion_open', ada.agent_id, { motion_id });
    expect(succeeded(opened)).toMatchObject({ motion_id, status: 'open' });
    expect(entriesOf(opened)[0]).toMatchObject({ event_type: 'motion_opened', data: { motion_id, quorum_required: expect.any(Number) } });
    await refusedWith(submitAct(under.engine, 'motion_open', ada.agent_id, { motion_id }), 'MOTION_NOT_DRAFT');
    const voted = await submitAct(under.engine, 'vote_cast', bob.agent_id, { motion_id, choice: 'aye' });
    expect(entriesOf(voted)[0]).toMatchObject({ event_type: 'vote_cast', actor: bob.agent_id, data: { motion_id, choice: 'aye' } });
  });

  it('closes the motion when engine time passes its window, by a system act on the ledger, and then refuses votes (MOTION_CLOSED)', async () => {
    const head = under.engine.state.ledger_head.seq;
    under.advance(under.engine.state.params.voting_window_seconds * 1000 + 1000);
    await under.engine.pulse();
    const closing = [...under.store.ledgerEntries(head + 1)].map(({ json }) => JSON.parse(json) as LedgerEntry);
    expect(closing.find((entry) => entry.data.motion_id === motion_id)).toMatchObject({ actor: 'system' });
    expect(under.engine.state.governance.motions[motion_id]!.status).not.toBe('open');
    await refusedWith(submitAct(under.engine, 'vote_cast', ada.agent_id, { motion_id, choice: 'nay' }), 'MOTION_CLOSED');
  });
});

describe('aether and bulletin', () => {
  it('aether_send needs Proof of Machine and, with it, broadcasts: aether_sent with its publication time', async () => {
    await refusedWith(submitAct(under.engine, 'aether_send', bob.agent_id, { body: 'hello' }), 'POM_REQUIRED');
    const outcome = await submitWithPom(under.engine, 'aether_send', bob.agent_id, { body: 'hello, society' });
    expect(succeeded(outcome)).toMatchObject({ route: 'global', publish_at: expect.any(String) });
    expect(entriesOf(outcome)[0]).toMatchObject({ event_type: 'aether_sent', actor: bob.agent_id, data: { route: 'global' } });
  });

  it('bulletin_post pins a notice (bulletin_posted); a challenge issued for another act fails it (POM_FAILED)', async () => {
    const outcome = await submitWithPom(under.engine, 'bulletin_post', bob.agent_id, { title: 'Notice', body: 'Meet at the ruins.' });
    expect(entriesOf(outcome)[0]).toMatchObject({ event_type: 'bulletin_posted', actor: bob.agent_id, data: { title: 'Notice' } });
    const asked = succeeded(await submitAct(under.engine, 'pom_challenge', bob.agent_id, { intent: 'aether_send' }));
    const challenge_id = asked.challenge_id as string;
    const puzzle_solution = under.engine.state.pom.challenges[challenge_id]!.answer;
    await refusedWith(submitAct(under.engine, 'bulletin_post', bob.agent_id, { body: 'again' }, { challenge_id, puzzle_solution }), 'POM_FAILED');
  });
});

// standOn places agents outside the log, so this society does not replay; determinism.test.ts replays.
describe('the ledger the acts wrote', () => {
  it('is in the store whole once drained: the engine head is the durable head, every entry chained to the one before', async () => {
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
