import { beforeAll, describe, expect, it } from 'vitest';
import { generateKey, type AgentKey } from '../client/keys.js';
import { Engine, type SubmitResult } from '../engine/engine.js';
import { electorateCount } from '../engine/governance/electorate.js';
import { recoverState } from '../engine/recover.js';
import { imageOf, stateFromImage, stateHash } from '../engine/state.js';
import { MemoryStore } from '../engine/store/memory_store.js';

const START_MS = Date.parse('2026-11-21T10:00:00Z');
let now = START_MS;
let store: MemoryStore;
let engine: Engine;
let founder: AgentKey;
const keys: Record<string, AgentKey> = {};

function ok(result: SubmitResult): Record<string, unknown> {
  if (!result.ok) throw new Error(`refused: ${result.code}`);
  return result.result;
}

/** A Proof of Machine act, answered from the engine's own record of the challenge (the HTTP tests solve it for real). */
async function withPom(name: string, act: string, payload: Record<string, unknown>): Promise<SubmitResult> {
  const actor = keys[name]!.agent_id;
  const { challenge_id } = ok(await engine.submit({ act: 'pom_challenge', actor, payload: { intent: act } })) as {
    challenge_id: string;
  };
  const puzzle_solution = engine.state.pom.challenges[challenge_id]!.answer;
  return engine.submit({ act, actor, payload, pom: { challenge_id, puzzle_solution } });
}

const post = (name: string) => withPom(name, 'bulletin_post', { title: '', body: `${name} was here` });
const firstActed = (name: string) => engine.state.agents.get(keys[name]!.agent_id)!.first_acted_at_ms;

beforeAll(async () => {
  founder = await generateKey();
  store = new MemoryStore();
  engine = await Engine.open(
    store,
    { founder_pubkey: founder.public_key, world_seed: 'electorate' },
    {
      clock: () => now,
      snapshot_every_ticks: 5,
      on_fatal: (error) => {
        throw error;
      },
    },
  );
  for (const name of ['ada', 'bob', 'cyd', 'dio']) {
    keys[name] = await generateKey();
    ok(
      await engine.submit({
        act: 'register',
        actor: keys[name]!.agent_id,
        payload: { pubkey: keys[name]!.public_key, handle: name, declared_runtime: '', backup_pubkey: null },
      }),
    );
  }
});

describe('the electorate of a motion', () => {
  it('counts nobody who has only registered, asked for a challenge or managed keys', async () => {
    now += 1000;
    ok(await engine.submit({ act: 'pom_challenge', actor: keys.ada!.agent_id, payload: { intent: 'bulletin_post' } }));
    ok(
      await engine.submit({
        act: 'key_backup_register',
        actor: keys.bob!.agent_id,
        payload: { backup_pubkey: (await generateKey()).public_key },
      }),
    );
    expect(firstActed('ada')).toBeUndefined();
    expect(firstActed('bob')).toBeUndefined();
    expect(electorateCount(engine.state, now + 1)).toBe(0);
  });

  it('does not count a filing refused at the Bedrock boundary, though it is recorded', async () => {
    now += 1000;
    const refused = await withPom('bob', 'motion_propose', {
      title: 'Rewrite A1',
      body: '',
      changes: [{ op: 'amend_axiom', article_id: 'A1', text: 'anything' }],
    });
    expect(refused).toMatchObject({ ok: false, code: 'BEDROCK_PROTECTED' });
    expect(firstActed('bob')).toBeUndefined();
  });

  it('counts a member from its first applied member act, strictly before the opening time, and only once', async () => {
    now += 1000;
    const ada_acted_ms = now;
    ok(await post('ada'));
    expect(firstActed('ada')).toBe(ada_acted_ms);
    now += 1000;
    ok(await post('ada'));
    expect(firstActed('ada')).toBe(ada_acted_ms);
    now += 1000;
    ok(await post('bob'));
    // Opened in the very millisecond of ada's first act: she does not count; a millisecond later she does.
    expect(electorateCount(engine.state, ada_acted_ms)).toBe(0);
    expect(electorateCount(engine.state, ada_acted_ms + 1)).toBe(1);
    expect(electorateCount(engine.state, now + 1)).toBe(2);
    expect(electorateCount(engine.state, START_MS)).toBe(0);
  });

  it('never counts the Founder, who is not a member', async () => {
    const refused = await engine.submit({
      act: 'bulletin_post',
      actor: founder.agent_id,
      payload: { title: '', body: 'hello' },
    });
    expect(refused).toMatchObject({ ok: false, code: 'MEMBERSHIP_REQUIRED' });
    expect(engine.state.agents.get(founder.agent_id)!.first_acted_at_ms).toBeUndefined();
  });

  it('counts, with payments on, only those who acted in time and are active members now', () => {
    const state = stateFromImage(imageOf(engine.state));
    state.payments.mode = 'test';
    const paid = {
      status: 'active' as const,
      mode: 'test' as const,
      customer_id: null,
      subscription_id: null,
      paid_cents_total: 100,
      updated_at_ms: now,
    };
    state.payments.members[keys.ada!.agent_id] = paid;
    state.payments.members[keys.cyd!.agent_id] = paid; // paid, but has never acted
    state.payments.members[keys.bob!.agent_id] = { ...paid, status: 'unpaid' }; // acted, but lapsed
    expect(electorateCount(state, now + 1)).toBe(1);
  });

  it('is engine state: kept in snapshots and rebuilt by replay, with or without them', async () => {
    now += 1000;
    ok(await post('cyd'));
    await engine.drain();
    const live = engine.state;
    expect(live.first_member_acts_ms).toHaveLength(3);
    for (const recovered of [
      recoverState(store),
      recoverState(store, { use_snapshot: false }),
      stateFromImage(imageOf(live)),
    ]) {
      expect(stateHash(recovered)).toBe(stateHash(live));
      expect(recovered.first_member_acts_ms).toEqual(live.first_member_acts_ms);
      expect(electorateCount(recovered, now + 1)).toBe(3);
    }
    expect(
      store.latestSnapshot()!.agents.filter((agent) => agent.first_acted_at_ms !== undefined).length,
    ).toBeGreaterThan(0);
  });
});
