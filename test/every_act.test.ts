import { beforeAll, describe, expect, it } from 'vitest';
import { generateKey, type AgentKey } from '../client/keys.js';
import { LedgerChecker, type WireEntry } from '../client/ledger_check.js';
import { EVENT_DATA } from '../engine/events/event_data.js';
import { EVENT_TYPES } from '../engine/events/event_catalogue.js';
import { CATALOGUE, findAct, imageOf, stateFromImage, stateHash, tileIndex } from '../engine/index.js';
import { moveAgent } from '../engine/world/agent_places.js';
import { naturalMaterial } from '../engine/world/terrain.js';
import { RELIC } from '../engine/world/materials.js';
import { findTile } from './helpers/world.js';
import { signedEngine, type SignedEngine } from './helpers/signed_engine.js';

/**
 * Every write act of the catalogue, run once in one society as its callers run it
 * (members' and the Founder's signed requests, the system's own acts), then the whole
 * ledger read by the client's verifier: an act that emits what the event catalogue does
 * not declare stops at once (engine/events/emit_check.ts), and one the verifier's tables
 * would refuse fails here. A new act is not covered until it is added to this society.
 */

const START_MS = Date.parse('2026-11-21T10:00:00Z');
const VOTING_WINDOW_SECONDS = 60;
/** The system's acts, submitted by the engine or the host, not by anyone's signed request. */
const systemActs = new Set(
  CATALOGUE.filter((act) => act.effect === 'write' && act.signer === 'system').map((a) => a.name),
);

let society: SignedEngine;
let entries: WireEntry[];
/** Every write act that was applied, signed or the system's. */
const applied = new Set<string>();

beforeAll(async () => {
  const [founder, alice, alice_backup, bob, bob_backup, bob_new, carol] = await Promise.all(
    Array.from({ length: 7 }, () => generateKey()),
  );
  society = await signedEngine({
    genesis: {
      society_name: 'Every act',
      world_seed: 'every-act',
      founder_pubkey: founder!.public_key,
      // Building costs nothing here, so the members need not mine for it first.
      params: {
        ap_at_registration: 1000,
        ap_cap: 1000,
        voting_window_seconds: VOTING_WINDOW_SECONDS,
        road_slag: 0,
        relay_mast_iron: 0,
        relay_mast_silicon: 0,
        relay_link_silicon_per_tile: 0,
        hub_relic: 0,
        hub_obsidian: 0,
      },
    },
    start_ms: START_MS,
    nonce_label: 'every-act',
  });
  await runEveryAct(society, {
    founder: founder!,
    alice: alice!,
    alice_backup: alice_backup!,
    bob: bob!,
    bob_backup: bob_backup!,
    bob_new: bob_new!,
    carol: carol!,
  });
  await society.engine.drain();
  for (const line of society.script) applied.add(line.act);
  entries = [];
  for (let seq = 1; seq <= society.engine.state.ledger_head.seq; seq++)
    entries.push(JSON.parse(society.store.ledgerJson(seq)!) as WireEntry);
}, 120_000);

async function system(name: string, payload: Record<string, unknown>): Promise<void> {
  // Parsed by the act's schema, defaults filled, as the host's callers hand it over.
  const parsed = findAct(name)!.payload.parse(payload);
  const outcome = await society.engine.submit({ act: name, actor: 'system', payload: parsed });
  if (!outcome.ok) throw new Error(`${name} refused: ${outcome.code} ${outcome.message}`);
  applied.add(name);
}

async function runEveryAct(
  s: SignedEngine,
  keys: Record<'founder' | 'alice' | 'alice_backup' | 'bob' | 'bob_backup' | 'bob_new' | 'carol', AgentKey>,
): Promise<void> {
  const { perform, must, engine } = s;
  const { founder, alice, alice_backup, bob, bob_backup, bob_new, carol } = keys;
  applied.add('society_found');
  await must(
    perform(alice, 'register', {
      pubkey: alice.public_key,
      handle: 'alice',
      declared_runtime: 'test',
      backup_pubkey: null,
    }),
    'register alice',
  );
  await must(
    perform(bob, 'register', {
      pubkey: bob.public_key,
      handle: 'bob',
      declared_runtime: 'test',
      backup_pubkey: bob_backup.public_key,
    }),
    'register bob',
  );
  await must(
    perform(carol, 'register', {
      pubkey: carol.public_key,
      handle: 'carol',
      declared_runtime: 'test',
      backup_pubkey: null,
    }),
    'register carol',
  );
  await must(perform(alice, 'key_backup_register', { backup_pubkey: alice_backup.public_key }), 'key_backup_register');

  // The world: alice is taken to a ruin with a relic two cells down (arranged, as the world tests do), and works there.
  const world = engine.state.world;
  const site = findTile(
    world,
    (x, y, biome) =>
      biome === 'ruins' &&
      ['ruins', 'plains', 'forest', 'wasteland'].includes(biome) &&
      naturalMaterial(world.terrain, x, y, world.terrain.base_height[tileIndex(x, y)]! - 2) === RELIC,
  );
  moveAgent(world, world.agents.get(alice.agent_id)!, site.x, site.y);
  moveAgent(world, world.agents.get(bob.agent_id)!, site.x, site.y);
  await must(perform(alice, 'world_gather', { x: null, y: null }), 'world_gather');
  for (let dig = 0; dig < 3; dig++) await must(perform(alice, 'world_dig', { ...site, z: null }), 'world_dig');
  const east = { x: site.x + 1, y: site.y };
  const taken = await must(perform(alice, 'world_dig', { ...east, z: null }), 'world_dig east');
  let placed = false;
  for (let block_id = 1; block_id <= 8 && !placed; block_id++)
    placed = (await perform(alice, 'world_place_block', { ...east, z: null, block_id })).ok;
  expect(placed, `a block of what the dig yielded (${String(taken.yield)})`).toBe(true);
  await must(perform(alice, 'world_break_block', { ...east, z: null }), 'world_break_block');
  await must(perform(alice, 'world_give', { to: bob.agent_id, resource: 'relic', amount: 1 }), 'world_give');
  await must(perform(alice, 'world_move', { path: ['w'] }), 'world_move');
  await must(perform(alice, 'world_build_road', { x: site.x - 1, y: site.y + 1 }), 'world_build_road');
  await must(perform(alice, 'aether_build_mast', {}), 'aether_build_mast');
  await must(perform(bob, 'aether_build_mast', {}), 'aether_build_mast (bob)');
  await must(perform(alice, 'aether_link', { from_relay_id: 1, to_relay_id: 2 }), 'aether_link');
  await must(perform(alice, 'aether_build_hub', { relay_id: 1 }), 'aether_build_hub');
  await must(perform(alice, 'aether_send', { body: 'Anyone out there?' }), 'aether_send');
  await must(perform(alice, 'bulletin_post', { title: 'Hello', body: 'A notice.' }), 'bulletin_post');

  // Governance: one motion passed and applied, one resolved by the Founder, a Bedrock filing refused, a Dispatch.
  const propose = async (title: string) => {
    const filed = await must(
      perform(alice, 'motion_propose', {
        title,
        body: '',
        changes: [{ op: 'set_param', name: 'transfer_ap', value: 2 }],
      }),
      'motion_propose',
    );
    return filed.motion_id as string;
  };
  const passing = await propose('Dearer giving');
  await must(perform(bob, 'motion_cosponsor', { motion_id: passing }), 'motion_cosponsor');
  await must(perform(alice, 'motion_open', { motion_id: passing }), 'motion_open');
  for (const voter of [alice, bob, carol])
    await must(perform(voter, 'vote_cast', { motion_id: passing, choice: 'aye' }), 'vote_cast');
  s.advance((VOTING_WINDOW_SECONDS + 1) * 1000);
  await engine.pulse();
  applied.add('motion_close');
  expect(engine.state.governance.motions[passing]?.status).toBe('passed');
  await must(perform(founder, 'enactment_apply', { motion_id: passing }), 'enactment_apply');
  const resolving = await propose('Dearer giving, again');
  await must(perform(alice, 'motion_open', { motion_id: resolving }), 'motion_open');
  await must(
    perform(founder, 'enactment_resolve', { motion_id: resolving, reason: 'settled already' }),
    'enactment_resolve',
  );
  const bedrock = await perform(bob, 'motion_propose', {
    title: 'Quiet ledger',
    body: '',
    changes: [{ op: 'amend_axiom', article_id: 'A4', text: 'nothing is recorded' }],
  });
  expect(bedrock.ok).toBe(false);
  await must(perform(founder, 'enactment_dispatch', {}), 'enactment_dispatch');

  // Keys: bob's backup key installs a new primary, which signs from then on.
  await must(perform(bob_backup, 'key_rotate', { new_pubkey: bob_new.public_key }, bob.agent_id), 'key_rotate');
  await must(
    perform(bob_new, 'aether_send', { body: 'Signed with my new key.' }, bob.agent_id),
    'aether_send (new key)',
  );

  // The treasury and the operator: the system's own acts, as the host submits them.
  const token_sha256 = 'ab'.repeat(32);
  await must(perform(founder, 'grant_issue', { token_sha256, kind: 'observer', note: 'for a reader' }), 'grant_issue');
  await system('grant_redeem', { token_sha256, visitor_id: 'v_0123456789abcdef' });
  await system('payments_configure', { mode: 'test' });
  await system('payment_event', {
    event_id: 'evt_every_act',
    type: 'invoice.paid',
    livemode: false,
    agent_id: alice.agent_id,
    customer_id: 'cus_everyact',
    subscription_id: 'sub_everyact',
    subscription_status: 'active',
    amount_cents: 500,
  });
  const head = engine.state.ledger_head;
  await system('backup_taken', { backup_id: 'backup-1', ledger_seq: head.seq, ledger_hash: head.hash });
  await system('restore_drill', { outcome: 'passed', detail: 'restored and compared', backup_id: 'backup-1' });
}

describe('every act of the catalogue, in one society', () => {
  it('runs every write act the catalogue holds', () => {
    const write_acts = CATALOGUE.filter((act) => act.effect === 'write').map((act) => act.name);
    expect(write_acts.filter((name) => !applied.has(name))).toEqual([]);
    expect([...systemActs].every((name) => applied.has(name))).toBe(true);
  });

  it('writes every event type of the event catalogue, each entry with data its schema accepts', () => {
    const seen = new Set(entries.map((entry) => entry.event_type));
    expect(EVENT_TYPES.filter((type) => !seen.has(type))).toEqual([]);
    for (const entry of entries) {
      const parsed = EVENT_DATA[entry.event_type as keyof typeof EVENT_DATA].safeParse(entry.data);
      expect(parsed.success, `${entry.seq} ${entry.event_type}: ${parsed.error?.message}`).toBe(true);
    }
  });

  it("passes the client's verifier, entry by entry", async () => {
    const checker = new LedgerChecker();
    for (const entry of entries) expect(await checker.check(entry)).toBeUndefined();
    expect(checker.checked).toBe(entries.length);
  });

  it('round-trips a snapshot of the state it leaves: the same state hash', () => {
    const state = society.engine.state;
    const restored = stateFromImage(structuredClone(imageOf(state)));
    expect(stateHash(restored)).toBe(stateHash(state));
  });
});
