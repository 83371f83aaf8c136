import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AgentKey } from '../client/keys.js';
import type { WireEntry } from '../client/ledger_check.js';
import { verifyLedger } from '../client/verify.js';
import {
  Engine,
  LEDGER_REVISION,
  MemoryStore,
  recoverState,
  type SubmitResult,
  type TickRecord,
} from '../engine/index.js';
import { firstProblem, rehashFrom, withInvented } from './helpers/forged_ledger.js';
import * as harness from './helpers/memory_engine.js';
import { request } from './helpers/signed.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { WORLD_TEST_GENESIS, findTile, join, standOn, stepInto, worldOf, type Member } from './helpers/world.js';

type Entry = { seq: number; at: string; event_type: string; actor: string; data: Record<string, any> };

const parsed = (outcome: SubmitResult): Entry[] => {
  if (!outcome.ok) throw new Error(`refused: ${outcome.code} ${outcome.message}`);
  return outcome.entries.map((entry) => JSON.parse(entry.json) as Entry);
};
const kinds = (entries: Entry[]) => entries.map((entry) => entry.event_type);
const storedTypes = (store: MemoryStore) => [...store.ledgerEntries(1)].map(({ json }) => JSON.parse(json).event_type);

describe('a society founded now', () => {
  let under: harness.EngineUnderTest;
  let ada: AgentKey;
  let bob: AgentKey;
  const act = (name: string, actor: AgentKey, payload: Record<string, unknown>) =>
    harness.submitAct(under.engine, name, actor.agent_id, payload);

  beforeAll(async () => {
    under = await harness.memoryEngine({
      genesis: { world_seed: 'ap-spent', params: { ap_at_registration: 300, ap_cap: 1000, dig_ap: 2 } },
    });
    ada = await harness.registered(under.engine, 'ada');
    bob = await harness.registered(under.engine, 'bob');
  });

  it('is founded at the current ledger revision, named on its first entry', () => {
    const founded = JSON.parse(under.store.ledgerJson(1)!);
    expect(founded).toMatchObject({ event_type: 'society_founded', data: { ledger_revision: LEDGER_REVISION } });
    expect(LEDGER_REVISION).toBe(1);
    expect(under.engine.state.ledger_revision).toBe(1);
  });

  it('follows a move with ap_spent {act, amount, for_seq}, at once, same actor and time, the AP kept in the move too', async () => {
    const world = under.engine.state.world;
    const start = findTile(world, (x, y, here) => here === 'plains' && stepInto(world, x, y, 'forest') !== undefined);
    const agent = world.agents.get(ada.agent_id)!;
    [agent.x, agent.y] = [start.x, start.y];
    const outcome = await act('world_move', ada, { path: [stepInto(world, start.x, start.y, 'forest')] });
    const [moved, spent] = parsed(outcome);
    expect(kinds(parsed(outcome)).slice(0, 2)).toEqual(['agent_moved', 'ap_spent']);
    expect(moved!.data.ap_spent).toBe(2);
    expect(spent).toEqual({
      ...spent,
      seq: moved!.seq + 1,
      at: moved!.at,
      actor: ada.agent_id,
      data: { act: 'world_move', amount: 2, for_seq: moved!.seq },
    });
    expect(outcome.ok && outcome.result.ap_spent).toBe(2);
    expect(JSON.parse(under.store.ledgerJson(spent!.seq)!)).not.toHaveProperty('proof');
  });

  it('puts it right behind the act entry, before the entries that follow the act (a gift: before resource_received)', async () => {
    const agent = under.engine.state.world.agents.get(ada.agent_id)!;
    const dug = parsed(await act('world_dig', ada, { x: agent.x, y: agent.y, z: null }));
    expect(kinds(dug).slice(0, 2)).toEqual(['terrain_dug', 'ap_spent']);
    expect(dug[1]!.data).toEqual({ act: 'world_dig', amount: 2, for_seq: dug[0]!.seq });
    const receiver = under.engine.state.world.agents.get(bob.agent_id)!;
    [receiver.x, receiver.y] = [agent.x, agent.y];
    const resource = Object.keys(agent.inventory)[0]!;
    const given = parsed(await act('world_give', ada, { to: bob.agent_id, resource, amount: 1 }));
    expect(given.map((entry) => [entry.event_type, entry.actor])).toEqual([
      ['resource_sent', ada.agent_id],
      ['ap_spent', ada.agent_id],
      ['resource_received', bob.agent_id],
    ]);
    expect(given[1]!.data).toEqual({ act: 'world_give', amount: 1, for_seq: given[0]!.seq });
  });

  it('puts none behind an act that spends no AP, nor behind a refused one', async () => {
    const head = under.engine.state.ledger_head.seq;
    const at = under.engine.state.world.agents.get(ada.agent_id)!;
    const refused = await act('world_dig', ada, { x: at.x + 10, y: at.y, z: null });
    const far = await act('world_give', ada, { to: bob.agent_id, resource: 'relic', amount: 1 });
    expect([refused.ok, far.ok]).toEqual([false, false]);
    expect(under.engine.state.ledger_head.seq).toBe(head);
    const free = await harness.memoryEngine({ genesis: { world_seed: 'ap-free', params: { dig_ap: 0 } } });
    const carl = await harness.registered(free.engine, 'carl');
    const spot = free.engine.state.world.agents.get(carl.agent_id)!;
    const dug = parsed(
      await harness.submitAct(free.engine, 'world_dig', carl.agent_id, { x: spot.x, y: spot.y, z: null }),
    );
    expect(kinds(dug)).not.toContain('ap_spent');
  });

  it('regenerates them on replay, byte for byte, at the revision the log names', async () => {
    // Its own society: the tests above place members by hand, which no log records.
    const walked = await harness.memoryEngine({ genesis: { world_seed: 'ap-replay' } });
    const dana = await harness.registered(walked.engine, 'dana');
    const tried = [];
    for (const direction of ['n', 'e', 's', 'w']) {
      tried.push(await harness.submitAct(walked.engine, 'world_move', dana.agent_id, { path: [direction] }));
      if (tried.at(-1)!.ok) break;
    }
    const spot = walked.engine.state.world.agents.get(dana.agent_id)!;
    await harness.submitAct(walked.engine, 'world_dig', dana.agent_id, { x: spot.x, y: spot.y, z: null });
    expect(storedTypes(walked.store).filter((type) => type === 'ap_spent')).toHaveLength(2);
    const replayed = recoverState(walked.store, { use_snapshot: false });
    expect(replayed.ledger_head).toEqual(walked.engine.state.ledger_head);
    expect(replayed.ledger_revision).toBe(1);
  });
});

/** A log and ledger written by the engine before ledger revisions, loaded into a store as they were committed. */
async function storeBeforeRevisions(): Promise<{ store: MemoryStore; entries: string[]; ticks: TickRecord[] }> {
  const fixture = JSON.parse(readFileSync(new URL('./fixtures/ledger_revision_0.json', import.meta.url), 'utf8'));
  const { ticks, entries } = fixture as { ticks: TickRecord[]; entries: string[] };
  const store = new MemoryStore();
  for (const record of ticks) {
    const at = new Date(record.at_ms).toISOString().replace('Z', '+00:00');
    const chained = entries
      .map((json) => JSON.parse(json) as { seq: number; at: string; hash: string })
      .filter((entry) => entry.at === at)
      .map((entry) => ({ seq: entry.seq, hash: entry.hash, json: entries[entry.seq - 1]! }));
    // No tree records: the store is as the engine wrote it then; the tree is built when it is opened.
    await store.commitTick({ record, entries: chained, tree_hashes: new Uint8Array(0), consumed_nonces: [] });
  }
  return { store, entries, ticks };
}

describe('a society founded before ledger revisions', () => {
  it('replays its log to the very entries it wrote: no ap_spent behind its moves and digs', async () => {
    const { store, entries, ticks } = await storeBeforeRevisions();
    expect(ticks[0]!.actions[0]!.payload).not.toHaveProperty('ledger_revision');
    expect(ticks.flatMap((tick) => tick.actions.map((action) => action.act))).toEqual(
      expect.arrayContaining(['world_move', 'world_dig']),
    );
    // recoverState compares every regenerated entry with the stored one, byte for byte.
    const replayed = recoverState(store, { use_snapshot: false });
    expect(replayed.ledger_head.seq).toBe(entries.length);
    expect(replayed.ledger_revision).toBe(0);
    expect(storedTypes(store)).not.toContain('ap_spent');
    expect(JSON.parse(entries[0]!).data).not.toHaveProperty('ledger_revision');
  });

  it('goes on writing no ap_spent entries once opened by the new engine', async () => {
    const { store } = await storeBeforeRevisions();
    const last = [...store.ticksAfter(0)].at(-1)!;
    const engine = await Engine.open(store, undefined, {
      clock: () => last.at_ms + 60_000,
      on_fatal: (error) => {
        throw error;
      },
    });
    const ada = [...engine.state.agents.values()].find((agent) => agent.handle === 'ada')!;
    const at = engine.state.world.agents.get(ada.agent_id)!;
    const dug = parsed(await harness.submitAct(engine, 'world_dig', ada.agent_id, { x: at.x, y: at.y, z: null }));
    expect(kinds(dug)).toEqual(['terrain_dug']);
    expect(dug[0]!.data.ap_spent).toBe(1);
  });
});

describe('tessera-agent verify and ap_spent', () => {
  let society: TestSociety;
  let member: Member;
  let entries: WireEntry[];

  beforeAll(async () => {
    society = await startTestSociety({ genesis: WORLD_TEST_GENESIS });
    member = await join(society, 'walker');
    const world = worldOf(society);
    const start = findTile(world, (x, y, here) => here === 'plains' && stepInto(world, x, y, 'plains') !== undefined);
    standOn(society, member, start.x, start.y);
    await member.client.act('world_move', { path: [stepInto(world, start.x, start.y, 'plains')] });
    await member.client.act('bulletin_post', { title: '', body: 'hello' });
    entries = (await request(society.url, '/api/v1/ledger?from=1&limit=1000')).body.entries;
  });
  afterAll(async () => society.destroy());

  const index = (event_type: string) => entries.findIndex((entry) => entry.event_type === event_type);
  const forged = async (edit: (chain: WireEntry[]) => void) => {
    const chain = structuredClone(entries);
    edit(chain);
    return firstProblem(await rehashFrom(chain, 0));
  };

  it('accepts the ledger as served, ap_spent behind the move', async () => {
    expect(entries[index('agent_moved') + 1]).toMatchObject({ event_type: 'ap_spent', actor: member.id });
    expect(await verifyLedger(society.url)).toMatchObject({ ok: true, entries_checked: entries.length });
  });

  it('refuses a ledger whose ap_spent was dropped, or disagrees with the act it is for', async () => {
    const spent = index('ap_spent');
    expect(await forged((chain) => chain.splice(spent, 1))).toEqual({
      seq: spent + 1,
      reason: expect.stringContaining('but no ap_spent entry follows it'),
    });
    expect(await forged((chain) => (chain[spent]!.data.amount = 3))).toEqual({
      seq: spent + 1,
      reason: "ap_spent amount 3 differs from the agent_moved's ap_spent (1)",
    });
    expect(await forged((chain) => (chain[spent]!.data.act = 'world_dig'))).toEqual({
      seq: spent + 1,
      reason: 'ap_spent names world_dig, not the AP-spending act the signed request before it asked for',
    });
    expect(await forged((chain) => (chain[spent]!.data.for_seq = spent - 1))).toEqual({
      seq: spent + 1,
      reason: `ap_spent must follow the act it is for at once and name its seq (${spent})`,
    });
    const stranger = entries.find((entry) => entry.event_type === 'agent_registered' && entry.actor !== member.id)!;
    expect(await forged((chain) => (chain[spent]!.actor = stranger.actor))).toEqual({
      seq: spent + 1,
      reason: 'ap_spent is for an agent the signed request before it does not name',
    });
  });

  it('refuses an ap_spent behind an act that spends no AP, and any on a ledger founded before ap_spent', async () => {
    const posted = index('bulletin_posted');
    const { actor, at } = entries[posted]!;
    const behind_post = await withInvented(entries.slice(0, posted + 1), {
      event_type: 'ap_spent',
      actor,
      at,
      data: { act: 'bulletin_post', amount: 1, for_seq: posted + 1 },
    });
    expect(await firstProblem(behind_post)).toEqual({
      seq: posted + 2,
      reason: 'ap_spent cannot come of a bulletin_posted request',
    });
    expect(
      await forged((chain) => {
        delete chain[0]!.data.ledger_revision;
      }),
    ).toEqual({
      seq: index('ap_spent') + 1,
      reason: "ap_spent on a ledger of revision 0, which records AP only in the act's own entry",
    });
  });
});
