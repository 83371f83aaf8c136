import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { generateKey } from '../client/keys.js';
import { chainEntry, type ChainedEntry } from '../engine/ledger.js';
import { hashesAddedBy } from '../engine/log/tree_batches.js';
import { emptyState, GENESIS_PREV_HASH, imageOf, type LedgerHead, type StateImage } from '../engine/state.js';
import { Engine, LmdbStore, MemoryStore, recoverState, stateHash, type TickCommit } from '../engine/index.js';
import { memoryEngine, submitAct } from './helpers/memory_engine.js';
import { tempDir } from './helpers/society.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  while (cleanup.length) await cleanup.pop()!();
});

type Medium = { name: string; open: (options?: { snapshots_kept?: number }) => LmdbStore | MemoryStore };

const MEDIA: Medium[] = [
  {
    name: 'LmdbStore',
    open: (options) => {
      const dir = tempDir();
      const store = new LmdbStore(dir, options);
      cleanup.push(async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      });
      return store;
    },
  },
  { name: 'MemoryStore', open: (options) => new MemoryStore(options) },
];

const AT_MS = Date.parse('2026-11-21T10:00:00Z');

/** Entries chained after head, as a tick would produce them. */
function entriesAfter(head: LedgerHead, count: number): ChainedEntry[] {
  const entries: ChainedEntry[] = [];
  let current = head;
  for (let index = 0; index < count; index++) {
    const entry = chainEntry(current, AT_MS, { event_type: 'restore_drill', actor: 'system', data: { index } });
    entries.push(entry);
    current = { seq: entry.seq, hash: entry.hash };
  }
  return entries;
}

/** Recognisable tree hashes for one leaf: as many as its append adds, each byte the leaf's number. */
function leafRecord(leaf: number): Uint8Array {
  return new Uint8Array(hashesAddedBy(leaf) * 32).fill(leaf % 256);
}

/** The store keeps tree hashes opaquely but finds a leaf's among its tick's by their count alone. */
function withTreeHashes(entries: ChainedEntry[]): Pick<TickCommit, 'entries' | 'tree_hashes'> {
  return { entries, tree_hashes: Buffer.concat(entries.map((entry) => leafRecord(entry.seq - 1))) };
}

function tickCommit(tick: number, head: LedgerHead, entry_count: number, snapshot?: StateImage): TickCommit {
  return {
    record: { tick, at_ms: AT_MS + tick, actions: [{ act: 'test_act', actor: 'system', payload: { tick } }] },
    ...withTreeHashes(entriesAfter(head, entry_count)),
    consumed_nonces: [{ nonce: `nonce-${tick}`, expires_at_ms: AT_MS + tick * 1000 }],
    ...(snapshot ? { snapshot } : {}),
  };
}

function imageAt(tick: number): StateImage {
  const state = emptyState();
  state.tick = tick;
  state.society_name = `society at tick ${tick}`;
  state.params = { ...state.params, quorum_floor: 3 };
  return imageOf(state);
}

describe.each(MEDIA)('the store contract, on $name', ({ open }) => {
  it('starts empty: the genesis head, tick 0, no snapshot, no entry, no tick', () => {
    const store = open();
    expect(store.ledgerHead()).toEqual({ seq: 0, hash: GENESIS_PREV_HASH });
    expect([store.lastTick(), store.latestSnapshot(), store.snapshotTicks()]).toEqual([0, undefined, []]);
    expect([[...store.ledgerEntries(1)], [...store.ticksAfter(0)], store.ledgerPage(1, 10)]).toEqual([[], [], []]);
    expect([store.ledgerJson(1), store.ledgerHash(1)]).toEqual([undefined, undefined]);
  });

  it('serves a committed tick whole: its log record, its entries as stored JSON and hash, its nonces', async () => {
    const store = open();
    const first = tickCommit(1, store.ledgerHead(), 3);
    await store.commitTick(first);
    const last = first.entries[2]!;
    expect(store.ledgerHead()).toEqual({ seq: 3, hash: last.hash });
    expect([...store.ticksAfter(0)]).toEqual([first.record]);
    expect(store.lastTick()).toBe(1);
    expect(store.ledgerJson(2)).toBe(first.entries[1]!.json);
    expect(store.ledgerHash(3)).toBe(last.hash);
    expect([...store.ledgerEntries(2)]).toEqual(first.entries.slice(1).map(({ seq, json }) => ({ seq, json })));
    expect(store.ledgerPage(2, 5)).toEqual(first.entries.slice(1).map((entry) => entry.json));
    expect([...store.spentNonces()]).toEqual(first.consumed_nonces);
    // The tick's tree hashes are filed in records under leaf indexes (seq - 1); each leaf's are found among them.
    expect(store.treeLeafCount()).toBe(3);
    for (const leaf of [0, 1, 2]) expect(Array.from(store.treeRecord(leaf)!)).toEqual(Array.from(leafRecord(leaf)));
    expect(store.treeRecord(3)).toBeUndefined();
    // A longer tick, cut into records at multiples of 16 leaves.
    await store.commitTick(tickCommit(2, store.ledgerHead(), 40));
    expect(store.treeLeafCount()).toBe(43);
    for (const leaf of [6, 3, 0, 5, 4, 1, 15, 16, 17, 31, 32, 42])
      expect(Array.from(store.treeRecord(leaf)!)).toEqual(Array.from(leafRecord(leaf)));
    expect(store.treeRecord(43)).toBeUndefined();
  });

  it('appends tree hashes outside a tick (a tree built for an older store) after those it holds', async () => {
    const store = open();
    await store.commitTick(tickCommit(1, store.ledgerHead(), 2));
    await store.appendTreeHashes(2, Buffer.concat([2, 3, 4].map(leafRecord)));
    expect(store.treeLeafCount()).toBe(5);
    for (const leaf of [3, 2, 4]) expect(Array.from(store.treeRecord(leaf)!)).toEqual(Array.from(leafRecord(leaf)));
  });

  it('refuses a tick whose tree hashes are not those of its entries', async () => {
    const store = open();
    const commit = tickCommit(1, store.ledgerHead(), 3);
    expect(() => store.commitTick({ ...commit, tree_hashes: commit.tree_hashes.subarray(32) })).toThrow(
      /tree hashes of every entry/,
    );
    expect(store.ledgerHead().seq).toBe(0);
  });

  it('shows a reader no entry of a commit until it is durable, and the ticks after a point in order', async () => {
    const store = open();
    await store.commitTick(tickCommit(1, store.ledgerHead(), 1));
    const before = store.ledgerHead();
    const pending = store.commitTick(tickCommit(2, before, 2));
    expect([store.ledgerHead(), store.ledgerPage(1, 10).length]).toEqual([before, 1]);
    await pending;
    await store.commitTick(tickCommit(3, store.ledgerHead(), 1));
    await store.flushed();
    expect(store.ledgerHead().seq).toBe(4);
    expect([...store.ticksAfter(1)].map((record) => record.tick)).toEqual([2, 3]);
    expect(store.ledgerPage(2, 2)).toHaveLength(2);
  });

  it('spends nonces of a tick whose every act was refused without logging a tick or moving the head', async () => {
    const store = open();
    await store.commitTick({
      entries: [],
      tree_hashes: new Uint8Array(0),
      consumed_nonces: [{ nonce: 'refused', expires_at_ms: AT_MS }],
    });
    const spent = [...store.spentNonces()].map(({ nonce }) => nonce);
    expect([store.lastTick(), store.ledgerHead().seq, spent]).toEqual([0, 0, ['refused']]);
  });

  it('keeps the newest snapshots_kept snapshots, each as it was when committed', async () => {
    const store = open({ snapshots_kept: 2 });
    const images: StateImage[] = [];
    for (let tick = 1; tick <= 4; tick++) {
      const image = imageAt(tick);
      images.push(image);
      await store.commitTick(tickCommit(tick, store.ledgerHead(), 1, image));
      // The engine goes on changing the state an image shares parts with.
      image.params.quorum_floor = 99;
      image.society_name = 'changed after the commit';
    }
    expect(store.snapshotTicks()).toEqual([3, 4]);
    expect(store.latestSnapshot()?.tick).toBe(4);
    expect(store.snapshotAt(2)).toBeUndefined();
    const third = store.snapshotAt(3);
    expect(third).toMatchObject({ tick: 3, society_name: 'society at tick 3', params: { quorum_floor: 3 } });
  });

  it('prunes only the nonce records whose every nonce has expired', async () => {
    const store = open();
    await store.commitTick({
      entries: [],
      tree_hashes: new Uint8Array(0),
      consumed_nonces: [{ nonce: 'old', expires_at_ms: 1000 }],
    });
    const mixed = [
      { nonce: 'old-too', expires_at_ms: 1500 },
      { nonce: 'fresh', expires_at_ms: 5000 },
    ];
    await store.commitTick({ entries: [], tree_hashes: new Uint8Array(0), consumed_nonces: mixed });
    await store.commitTick({
      entries: [],
      tree_hashes: new Uint8Array(0),
      consumed_nonces: [{ nonce: 'new', expires_at_ms: 9000 }],
    });
    expect(store.pruneSpentNonces(2000)).toBe(1);
    await store.flushed();
    expect([...store.spentNonces()].map((spent) => spent.nonce)).toEqual(['old-too', 'fresh', 'new']);
  });
});

describe('the engine on either store', () => {
  it('writes the same ledger, hash for hash, and recovers to the same state from each', async () => {
    const founder = await generateKey();
    const members = await Promise.all(['ada', 'bob', 'cyd'].map(() => generateKey()));
    const heads: LedgerHead[] = [];
    const state_hashes: string[] = [];
    for (const store of MEDIA.map((medium) => medium.open())) {
      const genesis = { founder_pubkey: founder.public_key, world_seed: 'contract' };
      const engine = await Engine.open(store, genesis, { clock: () => AT_MS, snapshot_every_ticks: 2 });
      for (const [index, key] of members.entries()) {
        const handle = ['ada', 'bob', 'cyd'][index]!;
        const outcome = await submitAct(engine, 'register', key.agent_id, { pubkey: key.public_key, handle });
        expect(outcome.ok).toBe(true);
      }
      await engine.drain();
      expect(store.snapshotTicks().length).toBeGreaterThan(0);
      heads.push(store.ledgerHead());
      const live = stateHash(engine.state);
      expect(stateHash(recoverState(store))).toBe(live);
      expect(stateHash(recoverState(store, { use_snapshot: false }))).toBe(live);
      state_hashes.push(live);
    }
    expect(heads[1]).toEqual(heads[0]);
    expect(state_hashes[1]).toBe(state_hashes[0]);
  });
});

describe('a held commit on the memory store', () => {
  it('is neither written nor answered until released, and the commits behind it land in order after it', async () => {
    // One action a tick: the second applies while the first's commit is held, and its commit queues behind.
    const { engine, store } = await memoryEngine({ actions_per_tick_max: 1 });
    const keys = [await generateKey(), await generateKey()];
    const head = store.ledgerHead();
    const tick_before = store.lastTick();
    let commits_arrived = 0;
    store.on_commit = () => commits_arrived++;
    const release = store.hold();
    const [first, second] = keys.map((key, index) =>
      submitAct(engine, 'register', key.agent_id, { pubkey: key.public_key, handle: `held-${index + 1}` }),
    );
    const answered: string[] = [];
    void first!.then(() => answered.push('first'));
    void second!.then(() => answered.push('second'));
    while (commits_arrived < 2) await new Promise((resolve) => setTimeout(resolve, 5));
    await new Promise((resolve) => setTimeout(resolve, 20));
    // Both ticks applied in memory; neither is written nor answered.
    expect(engine.state.tick).toBe(tick_before + 2);
    expect([answered, store.ledgerHead(), store.lastTick()]).toEqual([[], head, tick_before]);
    release();
    await Promise.all([first!, second!]);
    await engine.drain();
    expect(answered).toEqual(['first', 'second']);
    expect(store.ledgerHead()).toEqual(engine.state.ledger_head);
    const written = [...store.ledgerEntries(head.seq + 1)].map(({ json }) => JSON.parse(json));
    const registered = written.filter((entry) => entry.event_type === 'agent_registered');
    expect(registered.map((entry) => entry.data.handle)).toEqual(['held-1', 'held-2']);
  });
});
