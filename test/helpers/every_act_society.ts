import { keyFromSeed, type AgentKey } from '../../client/keys.js';
import { sha256Hex } from '../../client/protocol.js';
import { CATALOGUE, findAct, tileIndex } from '../../engine/index.js';
import { moveAgent } from '../../engine/world/agent_places.js';
import { RELIC } from '../../engine/world/materials.js';
import { naturalMaterial } from '../../engine/world/terrain.js';
import type { WireEntry } from '../../client/ledger_check.js';
import { signedEngine, type SignedEngine } from './signed_engine.js';
import { findTile } from './world.js';

/**
 * A society in which every write act of the catalogue has been applied once, as its
 * callers apply it (members' and the Founder's signed requests, the system's own acts).
 * Keys come from fixed labels and the clock is the engine's own, so the ledger is the
 * same bytes every time: test/every_act.test.ts checks it, and docs/vectors carries it
 * as every_event.json for verifiers in other languages. The world is arranged where an
 * act needs a place (a member is put on a ruin with a relic under it, as the world tests
 * do), so a verifier can check every entry; a replay of this log is not what it is for.
 */

const START_MS = Date.parse('2026-11-21T10:00:00Z');
const VOTING_WINDOW_SECONDS = 60;
const KEY_LABELS = ['founder', 'alice', 'alice_backup', 'bob', 'bob_backup', 'bob_new', 'carol'] as const;
type KeyLabel = (typeof KEY_LABELS)[number];

export interface EveryActSociety {
  society: SignedEngine;
  keys: Record<KeyLabel, AgentKey>;
  /** Every write act applied: the signed ones of the script, and the system's. */
  applied: Set<string>;
  entries: WireEntry[];
  texts: string[];
}

/** A key from its label: the 32-byte seed is SHA-256("tessera-every-act/" + label). */
async function labelledKey(label: string): Promise<AgentKey> {
  return keyFromSeed(Uint8Array.from(Buffer.from(await sha256Hex(`tessera-every-act/${label}`), 'hex')));
}

let made: Promise<EveryActSociety> | undefined;

/** Once per process: the society is the same every time anyway. */
export function everyActSociety(): Promise<EveryActSociety> {
  made ??= makeEveryActSociety();
  return made;
}

async function makeEveryActSociety(): Promise<EveryActSociety> {
  const keys = Object.fromEntries(
    await Promise.all(KEY_LABELS.map(async (label) => [label, await labelledKey(label)] as const)),
  ) as Record<KeyLabel, AgentKey>;
  const society = await signedEngine({
    genesis: {
      society_name: 'Every act',
      world_seed: 'every-act',
      founder_pubkey: keys.founder.public_key,
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
    nonce_label: 'tessera-every-act/nonce',
  });
  const applied = new Set<string>(['society_found']);
  await runEveryAct(society, keys, applied);
  await society.engine.drain();
  for (const line of society.script) applied.add(line.act);
  const texts: string[] = [];
  for (let seq = 1; seq <= society.engine.state.ledger_head.seq; seq++) texts.push(society.store.ledgerJson(seq)!);
  return { society, keys, applied, texts, entries: texts.map((text) => JSON.parse(text) as WireEntry) };
}

/** The system's acts, submitted by the engine or the host, not by anyone's signed request. */
export const SYSTEM_ACTS = new Set(
  CATALOGUE.filter((act) => act.effect === 'write' && act.signer === 'system').map((act) => act.name),
);

async function system(
  society: SignedEngine,
  applied: Set<string>,
  name: string,
  payload: Record<string, unknown>,
): Promise<void> {
  // Parsed by the act's schema, defaults filled, as the host's callers hand it over.
  const parsed = findAct(name)!.payload.parse(payload);
  const outcome = await society.engine.submit({ act: name, actor: 'system', payload: parsed });
  if (!outcome.ok) throw new Error(`${name} refused: ${outcome.code} ${outcome.message}`);
  applied.add(name);
}

async function runEveryAct(s: SignedEngine, keys: Record<KeyLabel, AgentKey>, applied: Set<string>): Promise<void> {
  const { perform, must, engine } = s;
  const { founder, alice, alice_backup, bob, bob_backup, bob_new, carol } = keys;
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
  if (!placed) throw new Error(`no block of what the dig yielded (${String(taken.yield)}) could be placed`);
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
  const status = engine.state.governance.motions[passing]?.status;
  if (status !== 'passed') throw new Error(`the motion closed ${String(status)}, not passed`);
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
  if (bedrock.ok) throw new Error('a Bedrock filing was accepted');
  await must(
    perform(founder, 'enactment_dispatch', { note: 'Two motions settled.\nThank you all.' }),
    'enactment_dispatch',
  );

  // Keys: bob's backup key installs a new primary, which signs from then on.
  await must(perform(bob_backup, 'key_rotate', { new_pubkey: bob_new.public_key }, bob.agent_id), 'key_rotate');
  await must(
    perform(bob_new, 'aether_send', { body: 'Signed with my new key.' }, bob.agent_id),
    'aether_send (new key)',
  );

  // The treasury and the operator: the system's own acts, as the host submits them.
  const token_sha256 = 'ab'.repeat(32);
  await must(perform(founder, 'grant_issue', { token_sha256, kind: 'observer', note: 'for a reader' }), 'grant_issue');
  await system(s, applied, 'grant_redeem', { token_sha256, visitor_id: 'v_0123456789abcdef' });
  await system(s, applied, 'payments_configure', { mode: 'test' });
  await system(s, applied, 'payment_event', {
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
  await system(s, applied, 'backup_taken', { backup_id: 'backup-1', ledger_seq: head.seq, ledger_hash: head.hash });
  await system(s, applied, 'restore_drill', {
    outcome: 'passed',
    detail: 'restored and compared',
    backup_id: 'backup-1',
  });
}
