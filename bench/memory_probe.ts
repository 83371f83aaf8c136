import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine } from '../engine/engine.js';
import { LmdbStore } from '../engine/store/lmdb_store.js';
import { freshPubkey, registerMembers } from './members.js';

/**
 * Run as its own process by the bench: a society with the whole plane and
 * `agents` members, then prints its resident set size in MB as one JSON line.
 */
const agents = Number(process.argv[2] ?? 10_000);
const dir = mkdtempSync(join(tmpdir(), 'tessera-memory-'));
const store = new LmdbStore(join(dir, 'store'));
let now = Date.parse('2026-11-21T10:00:00Z');
const engine = await Engine.open(store, { founder_pubkey: freshPubkey() }, { clock: () => (now += 1) });
await registerMembers(engine, agents, 'member');
await engine.drain();
global.gc?.();
const rss_mb = process.memoryUsage().rss / 2 ** 20;
console.log(JSON.stringify({ agents: engine.state.world.agents.size, rss_mb }));
await store.close();
rmSync(dir, { recursive: true, force: true });
