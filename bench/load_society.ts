import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { keyFromSeed } from '../client/keys.js';
import { TesseraClient } from '../client/sdk.js';
import { Engine, type Submission } from '../engine/engine.js';
import { LmdbStore } from '../engine/store/lmdb_store.js';
import { firstJsonLine } from './child.js';
import { freshPubkey, registerMembers } from './members.js';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

export interface LoaderAgent {
  agent_id: string;
  jwk: { kty: string; crv: string; x: string; d: string };
}

export interface SocietySize {
  /** Registered agents in all, the loaders among them. */
  members: number;
  /** Ledger entries to reach before the load starts (filler acts by the members). */
  ledger_entries: number;
}

export interface LoadSociety {
  url: string;
  pid: number;
  /** The served data folder (its log key, for a replica of a replicated run). */
  data_dir: string;
  /** A JSON file of the loaders' ids and private keys, for the generator process. */
  agents_file: string;
  /** An open motion the loaders vote on. */
  motion_id: string;
  ledger_seq: number;
  stop(): Promise<void>;
}

const GENESIS = { params: { ap_at_registration: 1_000_000, ap_cap: 1_000_000, voting_window_seconds: 30 * 86_400 } };

/**
 * A society to load, in its own process on the embedded store: founded by the server
 * itself, then grown in this process straight through the engine (members and ledger
 * entries at engine speed, not HTTP speed), then served again. The loaders are real
 * key pairs; the other members have well-formed keys nobody signs with. Given a
 * `serve_env` (a replicated log's node), the society is instead grown over HTTP, every
 * registration signed: a replica checks each entry's proof, and an engine-grown
 * registration carries none. Only loaders then, no filler.
 */
export async function startLoadSociety(
  loaders_count: number,
  size: SocietySize,
  profile_dir?: string,
  /** Extra environment for the serving start (a replicated log: LOG_URL, ROLE, NODE_ID). */
  serve_env: Record<string, string> = {},
): Promise<LoadSociety> {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-load-society-'));
  const genesis_file = join(dir, 'genesis.json');
  writeFileSync(genesis_file, JSON.stringify(GENESIS));
  const loaders = await Promise.all(
    Array.from({ length: loaders_count }, async () => {
      const jwk = generateKeyPairSync('ed25519').privateKey.export({ format: 'jwk' }) as LoaderAgent['jwk'];
      const key = await keyFromSeed(Buffer.from(jwk.d, 'base64url'));
      return { agent_id: key.agent_id, jwk, key };
    }),
  );
  const over_http = Object.keys(serve_env).length > 0;
  if (over_http && (size.members !== loaders_count || size.ledger_entries > 0))
    throw new Error('a society grown over HTTP has its loaders only');
  let ledger_seq = 0;
  if (!over_http) {
    // The server founds the society (and its founder key) itself; then it stops and the society is grown here.
    const founding = startServer(dir, genesis_file);
    await founding.listening;
    await stopServer(founding.child);
    ledger_seq = await grow(join(dir, 'data', 'store'), loaders, size);
  }

  const { child, listening } = startServer(dir, genesis_file, profile_dir, serve_env);
  try {
    const url = (await listening).listening as string;
    if (over_http)
      for (const [index, loader] of loaders.entries())
        await new TesseraClient(url, loader.key).register(`loader-${index}`, { declared_runtime: '' });
    const author = new TesseraClient(url, loaders[0]!.key);
    const motion_id = (
      await author.act<{ motion_id: string }>('motion_propose', { title: 'The load motion', body: '', changes: [] })
    ).result.motion_id;
    await author.act('motion_open', { motion_id });
    const agents_file = join(dir, 'agents.json');
    writeFileSync(agents_file, JSON.stringify(loaders.map(({ agent_id, jwk }) => ({ agent_id, jwk }))));
    return {
      url,
      pid: child.pid!,
      data_dir: join(dir, 'data'),
      agents_file,
      motion_id,
      ledger_seq,
      async stop() {
        await stopServer(child);
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await stopServer(child);
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
}

function startServer(
  dir: string,
  genesis_file: string,
  profile_dir?: string,
  serve_env: Record<string, string> = {},
): { child: ChildProcess; listening: Promise<Record<string, unknown>> } {
  // LOAD_PROFILE=DIR writes a CPU profile of the server under load into DIR (--cpu-prof).
  const profile_args = profile_dir ? ['--cpu-prof', `--cpu-prof-dir=${profile_dir}`] : [];
  const env = {
    ...process.env,
    DATA_DIR: join(dir, 'data'),
    PORT: '0',
    GENESIS_FILE: genesis_file,
    READS_PER_SECOND: '1000000',
    READ_CPU_SHARE: '64',
    READ_BYTES_PER_SECOND: '1073741824',
    READ_BURST: '1000000',
    // The stream benchmark's subscribers all come from this machine's one address.
    EVENT_STREAMS_PER_ADDRESS: '100000',
    CONNECTIONS_PER_ADDRESS: '100000',
    NONCES_PER_SECOND: '1000000',
    NONCE_BURST: '1000000',
    BACKUP_EVERY_SECONDS: '0',
    REGISTRATIONS_PER_HOUR: '1000000',
    REGISTRATION_BURST: '1000000',
    ...serve_env,
  };
  const child = spawn(process.execPath, [...profile_args, here('../api/main.js')], {
    env,
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  return { child, listening: firstJsonLine(child, 'listening') };
}

/** SIGTERM and wait: the server finishes queued acts and closes the store first. */
async function stopServer(child: ChildProcess): Promise<void> {
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

/** Registers the loaders and the other members, then files filler acts until the ledger is long enough. */
async function grow(
  store_path: string,
  loaders: { agent_id: string; jwk: { x: string } }[],
  size: SocietySize,
): Promise<number> {
  const store = new LmdbStore(store_path);
  const engine = await Engine.open(store, GENESIS, { clock: Date.now, snapshot_every_ticks: 200 });
  try {
    const registered = await Promise.all(
      loaders.map((loader, i) =>
        engine.submit({
          act: 'register',
          actor: loader.agent_id,
          payload: { pubkey: loader.jwk.x, handle: `loader-${i}`, declared_runtime: '', backup_pubkey: null },
        }),
      ),
    );
    if (!registered.every((outcome) => outcome.ok)) throw new Error('loader registration refused');
    const others: string[] = [];
    for (let done = loaders.length; done < size.members; done += 10_000)
      others.push(...(await registerMembers(engine, Math.min(10_000, size.members - done), `member-${done}`)));
    const fillers = others.length > 0 ? others : loaders.map((loader) => loader.agent_id);
    // Each filler swaps between two backup keys of its own: a fresh key per act would cost a key
    // generation and a judging per entry of a million.
    const filler_keys = fillers.map(() => [freshPubkey(), freshPubkey()] as const);
    const swaps = fillers.map(() => 0);
    while (engine.state.ledger_head.seq < size.ledger_entries) {
      const batch: Submission[] = Array.from({ length: 4096 }, (_, i) => {
        const filler = i % fillers.length;
        return {
          act: 'key_backup_register',
          actor: fillers[filler]!,
          payload: { backup_pubkey: filler_keys[filler]![swaps[filler]!++ % 2]! },
        };
      });
      await Promise.all(batch.map((submission) => engine.submit(submission)));
    }
    await engine.drain();
    return engine.state.ledger_head.seq;
  } finally {
    await store.close();
  }
}
