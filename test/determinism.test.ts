import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { generateKey, type AgentKey } from '../client/keys.js';
import { Engine, type Submission, type SubmitResult } from '../engine/engine.js';
import { recoverState } from '../engine/recover.js';
import { stateHash } from '../engine/state.js';
import { LmdbStore } from '../engine/store/lmdb_store.js';
import { MemoryStore } from '../engine/store/memory_store.js';
import type { EngineStore } from '../engine/store/types.js';
import { tempDir } from './helpers/society.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

/** The engine's determinism needs no disk: the memory store, except where a restart from disk is the point. */
async function openEngine<S extends EngineStore>(
  store: S,
  founder: AgentKey,
  clock: () => number,
  snapshot_every_ticks = 7,
  actions_per_tick_max?: number,
) {
  const engine = await Engine.open(
    store,
    { founder_pubkey: founder.public_key, world_seed: 'determinism' },
    {
      clock,
      snapshot_every_ticks,
      ...(actions_per_tick_max ? { actions_per_tick_max } : {}),
      on_fatal: (error) => {
        throw error;
      },
    },
  );
  return { store, engine };
}

/** A seeded mix of acts, some of which are refused (taken handles, reused keys, rotation without backup). */
async function workload(count: number, seed: number): Promise<Submission[]> {
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) % 2147483648) / 2147483648;
  const keys: AgentKey[] = [];
  const submissions: Submission[] = [];
  for (let i = 0; i < count; i++) {
    const roll = next();
    if (roll < 0.4 || keys.length === 0) {
      const key = await generateKey();
      keys.push(key);
      const handle = `agent-${Math.floor(next() * count * 0.6)}`; // collisions give HANDLE_TAKEN
      submissions.push({
        act: 'register',
        actor: key.agent_id,
        payload: { pubkey: key.public_key, handle, declared_runtime: '', backup_pubkey: null },
      });
    } else if (roll < 0.55) {
      const owner = keys[Math.floor(next() * keys.length)]!;
      const path = Array.from(
        { length: 1 + Math.floor(next() * 3) },
        () => ['n', 'ne', 'e', 'se', 's', 'sw', 'w', 'nw'][Math.floor(next() * 8)],
      );
      submissions.push({ act: 'world_move', actor: owner.agent_id, payload: { path } });
    } else if (roll < 0.62) {
      const owner = keys[Math.floor(next() * keys.length)]!;
      submissions.push({ act: 'world_gather', actor: owner.agent_id, payload: { x: null, y: null } });
    } else if (roll < 0.8) {
      const owner = keys[Math.floor(next() * keys.length)]!;
      const backup = next() < 0.2 ? keys[Math.floor(next() * keys.length)]! : await generateKey(); // reuse gives KEY_TAKEN
      submissions.push({
        act: 'key_backup_register',
        actor: owner.agent_id,
        payload: { backup_pubkey: backup.public_key },
      });
    } else {
      const owner = keys[Math.floor(next() * keys.length)]!;
      submissions.push({
        act: 'key_rotate',
        actor: owner.agent_id,
        payload: { new_pubkey: (await generateKey()).public_key },
      });
    }
  }
  return submissions;
}

/** Submits in bursts so that ticks hold several actions, moving the clock between bursts. */
async function drive(engine: Engine, submissions: Submission[], advance: () => void): Promise<SubmitResult[]> {
  const results: SubmitResult[] = [];
  for (let i = 0; i < submissions.length; i += 9) {
    const burst = submissions.slice(i, i + 9).filter((s) => s.act === 'register' || engine.state.agents.has(s.actor));
    results.push(...(await Promise.all(burst.map((s) => engine.submit(s)))));
    advance();
  }
  return results;
}

describe('determinism', () => {
  it('replays the same log to the same state hash and ledger head, with or without snapshots', async () => {
    let now = Date.parse('2026-11-21T10:00:00Z');
    const { store, engine } = await openEngine(new MemoryStore(), await generateKey(), () => now);
    const results = await drive(engine, await workload(240, 7), () => (now += 1234));
    // Make sure the log runs past the newest snapshot, so recovery replays a tail after it.
    while (store.latestSnapshot()!.tick === engine.state.tick) {
      const key = await generateKey();
      await engine.submit({
        act: 'register',
        actor: key.agent_id,
        payload: {
          pubkey: key.public_key,
          handle: `tail-${engine.state.tick}`,
          declared_runtime: '',
          backup_pubkey: null,
        },
      });
    }
    await engine.drain();

    const refused = results.filter((r) => !r.ok).map((r) => (r.ok ? '' : r.code));
    for (const code of ['HANDLE_TAKEN', 'KEY_TAKEN', 'NO_BACKUP_KEY', 'NOTHING_TO_GATHER'])
      expect(refused).toContain(code);
    expect(
      results.filter((r) => r.ok && r.entries.some((e) => e.json.includes('"agent_moved"'))).length,
    ).toBeGreaterThan(10);
    expect(store.latestSnapshot()?.tick).toBeGreaterThan(7);

    const live_hash = stateHash(engine.state);
    const head = store.ledgerHead();
    const full_once = recoverState(store, { use_snapshot: false });
    const full_twice = recoverState(store, { use_snapshot: false });
    const from_snapshot = recoverState(store);
    for (const replayed of [full_once, full_twice, from_snapshot]) {
      expect(stateHash(replayed)).toBe(live_hash);
      expect(replayed.ledger_head).toEqual(head);
    }
    expect(store.latestSnapshot()!.tick).toBeLessThan(full_once.tick); // the snapshot path replayed a tail
  });

  it('gives the same ledger, hash for hash, when the same actions run on a second store', async () => {
    const founder = await generateKey();
    const submissions = await workload(120, 99);
    const heads: string[] = [];
    for (const snapshot_every_ticks of [3, 1000]) {
      let now = Date.parse('2026-11-21T10:00:00Z');
      const { store, engine } = await openEngine(new MemoryStore(), founder, () => now, snapshot_every_ticks);
      await drive(engine, submissions, () => (now += 500));
      await engine.drain();
      heads.push(store.ledgerHead().hash);
    }
    expect(heads[0]).toBe(heads[1]);
  });

  it('restarts from disk to the same state', async () => {
    const dir = tempDir();
    let now = Date.parse('2026-11-21T10:00:00Z');
    const founder = await generateKey();
    const first = await openEngine(new LmdbStore(dir), founder, () => now, 5);
    await drive(first.engine, await workload(60, 3), () => (now += 90_000));
    await first.engine.drain();
    const before = stateHash(first.engine.state);
    await first.store.close();
    const second = await openEngine(new LmdbStore(dir), founder, () => now, 5);
    cleanup.push(async () => {
      await second.store.close();
      rmSync(dir, { recursive: true, force: true });
    });
    expect(stateHash(second.engine.state)).toBe(before);
  });
});

describe('group commit', () => {
  /** An engine on the memory store whose first commit is held until released; counts the actions of every commit. */
  async function engineWithHeldCommit(actions_per_tick_max?: number) {
    const store = new MemoryStore();
    const clock = () => Date.parse('2026-11-21T10:00:00Z');
    const { engine } = await openEngine(store, await generateKey(), clock, 7, actions_per_tick_max);
    const actions_per_commit: number[] = [];
    let release: () => void = () => {};
    store.on_commit = (tick) => {
      actions_per_commit.push(tick.record?.actions.length ?? 0);
      if (actions_per_commit.length === 1) release = store.hold();
    };
    const firstCommitCalled = async () => {
      while (actions_per_commit.length === 0) await new Promise((resolve) => setImmediate(resolve));
    };
    return { engine, actions_per_commit, release: () => release(), firstCommitCalled };
  }

  it('starts no tick while a commit is in flight, and folds what arrived meanwhile into one tick', async () => {
    const { engine, actions_per_commit, release, firstCommitCalled } = await engineWithHeldCommit();
    // Keys made beforehand: each submission then reaches the queue in the turn it is made.
    const keys = await Promise.all(Array.from({ length: 6 }, () => generateKey()));
    const register = () => {
      const key = keys.pop()!;
      return engine.submit({
        act: 'register',
        actor: key.agent_id,
        payload: {
          pubkey: key.public_key,
          handle: `grouped-${key.agent_id.slice(-6)}`,
          declared_runtime: '',
          backup_pubkey: null,
        },
      });
    };
    const first = register();
    await firstCommitCalled();
    const rest = await Promise.all(
      Array.from({ length: 5 }, () => register()).map((pending) =>
        Promise.race([pending, new Promise((resolve) => setTimeout(() => resolve('waiting'), 30))]),
      ),
    );
    expect([actions_per_commit, rest]).toEqual([[1], ['waiting', 'waiting', 'waiting', 'waiting', 'waiting']]);
    release();
    expect((await first).ok).toBe(true);
    await engine.drain();
    expect(actions_per_commit).toEqual([1, 5]);
    expect(engine.state.agents.size).toBe(1 + 6);
  });

  it('does not hold back a backlog of a full tick or more: it applies while the commit before it is in flight', async () => {
    const { engine, actions_per_commit, release, firstCommitCalled } = await engineWithHeldCommit(4);
    const keys = await Promise.all(Array.from({ length: 10 }, () => generateKey()));
    const register = (key: AgentKey) =>
      engine.submit({
        act: 'register',
        actor: key.agent_id,
        payload: {
          pubkey: key.public_key,
          handle: `backlog-${key.agent_id.slice(-6)}`,
          declared_runtime: '',
          backup_pubkey: null,
        },
      });
    const first = register(keys[0]!);
    await firstCommitCalled();
    const rest = keys.slice(1).map(register);
    while (actions_per_commit.length < 3) await new Promise((resolve) => setImmediate(resolve));
    await new Promise((resolve) => setTimeout(resolve, 30));
    // Nine waiting, four to a tick: two full ticks go ahead; the last one waits for the held commit.
    expect(actions_per_commit).toEqual([1, 4, 4]);
    release();
    expect((await Promise.all([first, ...rest])).every((outcome) => outcome.ok)).toBe(true);
    await engine.drain();
    expect(actions_per_commit).toEqual([1, 4, 4, 1]);
  });
});

describe('a fault inside the engine', () => {
  it('answers the faulty action INTERNAL, keeps its tick-mates, and leaves state equal to a replay', async () => {
    let now = Date.parse('2026-11-21T10:00:00Z');
    const { store, engine } = await openEngine(new MemoryStore(), await generateKey(), () => now);
    const [a, b] = [await generateKey(), await generateKey()];
    const register = (key: AgentKey, handle: string): Submission => ({
      act: 'register',
      actor: key.agent_id,
      payload: { pubkey: key.public_key, handle, declared_runtime: '', backup_pubkey: null },
    });
    // All three are submitted in one turn, so they share a tick; the middle one throws inside apply.
    const results = await Promise.all([
      engine.submit(register(a, 'before-fault')),
      engine.submit({ act: 'no_such_act', actor: a.agent_id, payload: {} }),
      engine.submit(register(b, 'after-fault')),
    ]);
    expect(results.map((r) => (r.ok ? 'ok' : r.code))).toEqual(['ok', 'INTERNAL', 'ok']);
    await engine.drain();
    expect([...engine.state.agent_by_handle.keys()]).toEqual(expect.arrayContaining(['before-fault', 'after-fault']));
    expect(stateHash(engine.state)).toBe(stateHash(recoverState(store, { use_snapshot: false })));
  });
});
