import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { CONNECTION_LIMITS, limitConnections } from './connection_limit.js';
import type { Server } from 'node:http';
import { answerStarting, listenFirst } from './listen_first.js';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { DivergedLogError, Engine, LmdbStore } from '../engine/index.js';
import { createApp, type TesseraApp } from './app.js';
import { FormerPrimaryKeys, provideFormerKeys } from './authenticate.js';
import type { Config } from './config.js';
import { prepareGenesis, readGenesisSettings, type FounderSetup } from './founder.js';
import { NonceBook } from './nonces.js';
import { ChunkCache } from './chunk_cache.js';
import { Processor, paymentModeOf } from './payments/processor.js';
import { Operations } from './operations/operator.js';
import { dailyDispatchFor } from './operations/daily_dispatch.js';
import { Metrics } from './metrics.js';
import { pino } from 'pino';
import { claimDataFolder, COOKIE_SECRET_FILE, inspectDataFolder, STORE_FOLDER } from './data_folder.js';
import { Checkpoints } from './log/checkpoints.js';
import { defaultOrigin, loadOrCreateLogKey, type LogKey } from './log/log_key.js';
import { TransparencyLog } from './log/transparency_log.js';
import { COSIGNED_CHECKPOINT_FILE, Witnessing } from './log/witnessing.js';
import { EventHub } from './events/event_hub.js';
import { WorldChanges } from './events/world_changes.js';
import { EVENT_STREAM_LIMITS } from './events/event_limits.js';
import { ledgerReaderOf } from './read_context.js';
import type { ClusterLog } from './cluster/cluster_setup.js';
import { ReplicatedStore } from './cluster/replicated_store.js';
import { ClusterNode } from './cluster/cluster_node.js';
import { ClusterMetrics } from './cluster/cluster_metrics.js';
import { FencedError } from './cluster/tick_log.js';
import { EXIT_CODES } from './cluster/exit_codes.js';

export interface RunningSociety {
  url: string;
  engine: Engine;
  store: LmdbStore;
  founder: FounderSetup;
  operations: Operations;
  nonces: NonceBook;
  /** Every route the app serves (method, pattern), as its router lists them. */
  routes: { method: string; pattern: string; raw_body: boolean }[];
  /** The app's two request paths (TesseraApp.paths), for the tests that hold them equal. */
  paths: TesseraApp['paths'];
  /** This node's part in a replicated society (config.cluster); absent on the embedded default. */
  cluster?: ClusterNode;
  close(): Promise<void>;
}

export interface StartOptions {
  /** The host clock; tests pass their own to move time. */
  clock?: () => number;
  /** Where bugs are reported; never given request bodies, keys or nonces. */
  report?: (error: unknown, where: string) => void;
  on_fatal?: (error: unknown) => void;
  log?: (line: Record<string, unknown>) => void;
  /** With config.cluster: the tick log and lease to use instead of connecting to NATS (tests: the in-process adapters). */
  cluster_log?: ClusterLog;
  /** Told the moment a Founder key is made in the data folder, so it is announced whatever happens next. */
  on_founder_key?: (key_file: string, public_key: string) => void;
}

/** COOKIE_SECRET, or one generated once into the data folder (mode 0600). */
function cookieSecret(config: Config): string {
  if (config.cookie_secret) return config.cookie_secret;
  const file = join(config.data_dir, COOKIE_SECRET_FILE);
  if (!existsSync(file)) writeFileSync(file, randomBytes(32).toString('base64url'), { mode: 0o600, flag: 'wx' });
  return readFileSync(file, 'utf8').trim();
}

/**
 * Opens the store, founds or recovers the society, and serves it over HTTP. Settings
 * start-up cannot use (the genesis file, a port in use, a host that is not this
 * machine's) are refused (ConfigurationError) before the data folder is touched: the
 * socket is bound first. A data folder that holds a damaged store, or traces of a
 * society without its store, is refused (StartRefusedError) before anything is
 * written; a store whose entries fail the replay check is refused
 * (StoreIntegrityError, naming the seq) before serving.
 */
export async function startSociety(config: Config, options: StartOptions = {}): Promise<RunningSociety> {
  const genesis_settings = readGenesisSettings(config.genesis_file);
  const server = await listenFirst(config);
  try {
    return await serveSociety(server, config, genesis_settings, options);
  } catch (error) {
    server.close();
    throw error;
  }
}

async function serveSociety(
  server: Server,
  config: Config,
  genesis_settings: Record<string, unknown>,
  options: StartOptions,
): Promise<RunningSociety> {
  const clock = options.clock ?? Date.now;
  // Structured logs (pino) to stdout; callers choose what goes in a line, never bodies, keys or session ids.
  const logger = pino({ base: null, timestamp: pino.stdTimeFunctions.isoTime });
  const report = options.report ?? ((error, where) => logger.error({ where, err: error }, 'bug'));
  const log = options.log ?? ((line: Record<string, unknown>) => logger.info(line));
  const release = claimDataFolder(config.data_dir);
  let store: LmdbStore;
  try {
    const folder = await inspectDataFolder(config.data_dir, { joining: config.cluster !== undefined });
    // The store before the Founder key: a first start cut short in between leaves a store
    // (a society not yet founded, founded on the next start), never a key without one.
    store = new LmdbStore(join(config.data_dir, STORE_FOLDER), { existing_only: folder === 'existing' });
  } catch (error) {
    release();
    throw error;
  }
  let cluster_log: ClusterLog | undefined;
  if (config.cluster) {
    try {
      // The NATS client is loaded by a node of a replicated society only: the embedded default starts without it.
      const { openClusterLog } = await import('./cluster/cluster_setup.js');
      cluster_log = options.cluster_log ?? (await openClusterLog(config.cluster, log));
    } catch (error) {
      await store.close();
      release();
      throw error;
    }
  }
  let engine_ref: Engine | undefined;
  let node_ref: ClusterNode | undefined;
  // Made after the engine opens (it reads the durable head); the engine publishes to it from then on.
  let events_ref: { ledger: EventHub; world: WorldChanges } | undefined;
  const metrics = new Metrics(() => engine_ref);
  const cluster_metrics = cluster_log ? new ClusterMetrics(metrics.registry, () => node_ref) : undefined;
  const engine_store = cluster_log ? new ReplicatedStore(store, (ms) => cluster_metrics?.onAppend(ms)) : store;
  /**
   * How the process stops when it cannot go on (api/cluster/exit_codes.ts): a node another
   * writer fenced exits 75 (started again, it follows), one whose store is not the log's
   * 65, anything else is a bug and exits 70. Tests pass on_fatal.
   */
  const fatal = (error: unknown, where: string) => {
    if (options.on_fatal) return options.on_fatal(error);
    if (error instanceof FencedError) {
      log({ cluster: 'fenced', why: error.message });
      process.exit(EXIT_CODES.fenced);
    }
    if (error instanceof DivergedLogError) {
      log({ cluster: 'diverged', why: error.message });
      process.exit(EXIT_CODES.diverged);
    }
    report(error, where);
    process.exit(EXIT_CODES.internal);
  };
  // Read from the ledger only when a refused signature needs them; kept current from the commits after that.
  const former_keys = new FormerPrimaryKeys(() => store.ledgerEntries(1));
  let founder: FounderSetup;
  let engine: Engine;
  let log_key: LogKey;
  try {
    const log_ticks = cluster_log ? await cluster_log.log.lastTick() : 0;
    const origin = config.log_origin ?? defaultOrigin(config.public_url);
    const configured = config.log_origin !== undefined;
    // Before anything is written: every node of a replicated society signs under the one key recorded with its log.
    log_key = config.cluster
      ? await (await import('./cluster/log_identity.js')).loadNodeLogKey(config.data_dir, origin, configured, {
          role: config.cluster.role,
          log_ticks,
          identity: cluster_log?.identity,
        })
      : await loadOrCreateLogKey(config.data_dir, origin, configured);
    founder = prepareGenesis(config.data_dir, genesis_settings, {
      // A replica never makes a Founder key: its leader founds the society, and a key made here would be a
      // stranger's. Without one (or a founder_pubkey in GENESIS_FILE) it never leads an empty log (can_found).
      founded: store.lastTick() > 0 || log_ticks > 0 || config.cluster?.role === 'replica',
      ...(options.on_founder_key ? { on_created: options.on_founder_key } : {}),
    });
    engine = await Engine.open(engine_store, founder.genesis, {
      writer: !cluster_log,
      clock,
      snapshot_every_ticks: config.snapshot_every_ticks,
      queue_depth_max: config.queue_depth_max,
      monotonic_ms: () => performance.now(),
      on_tick: (report) => metrics.onTick(report),
      on_committed: (entries) => {
        former_keys.record(entries);
        events_ref?.ledger.publish(entries);
        events_ref?.world.publish(entries.at(-1)!.seq);
      },
      on_fault: (error, action) => report(error, `engine apply of ${action.act}`),
      on_fatal: (error) => fatal(error, 'engine commit'),
    });
  } catch (error) {
    // A refused recovery (StoreIntegrityError) or genesis leaves nothing open behind it.
    await cluster_log?.close();
    await store.close();
    release();
    throw error;
  }
  store.pruneSpentNonces(clock());
  store.pruneKeptAnswers(clock());
  engine_ref = engine;
  // The payment mode is recorded in the log whenever it changes, so membership follows from the log alone.
  const recordPaymentMode = async () => {
    const mode = paymentModeOf(config.payments);
    if (engine.state.payments.mode === mode) return;
    const configured = await engine.submit({ act: 'payments_configure', actor: 'system', payload: { mode } });
    if (!configured.ok) throw new Error(`payment mode refused: ${configured.code}`);
  };
  if (engine.is_writer) await recordPaymentMode();
  const checkpoints = new Checkpoints(log_key, engine.log_tree, () => store.ledgerHead().seq);
  const witnessing =
    config.witnesses.length > 0
      ? new Witnessing(
          config.witnesses,
          checkpoints,
          engine.log_tree,
          join(config.data_dir, COSIGNED_CHECKPOINT_FILE),
          log,
        )
      : undefined;
  const transparency = new TransparencyLog(engine.log_tree, checkpoints, (seq) => store.ledgerJson(seq), witnessing);
  const processor = config.payments ? await Processor.open(config.payments) : undefined;
  const nonces = new NonceBook({ clock });
  const chunks = new ChunkCache(() => engine.state.world, { workers: config.chunk_workers });
  const stream_limits = { ...EVENT_STREAM_LIMITS, ...config.event_stream_limits };
  const events = {
    ledger: new EventHub({ ...stream_limits, ledger: ledgerReaderOf(store), clock }),
    world: new WorldChanges(stream_limits, clock, () => engine.state.world, chunks, engine.state.tick > 0),
    limits: stream_limits,
  };
  events_ref = events;
  const operations = new Operations(
    engine,
    store,
    { data_dir: config.data_dir, backup_every_seconds: config.backup_every_seconds, backups_kept: config.backups_kept },
    clock,
    log,
  );
  const app = createApp({
    engine,
    processor,
    store,
    nonces,
    chunks,
    clock,
    operations,
    metrics,
    log,
    report,
    cookie_secret: cookieSecret(config),
    read_limits: config.read_limits,
    ...(config.mcp_limits ? { mcp_limits: config.mcp_limits } : {}),
    registration_limits: config.registration_limits,
    nonce_limits: config.nonce_limits,
    public_url: config.public_url,
    body_limit_bytes: config.body_limit_bytes,
    started_at_ms: clock(),
    transparency,
    events,
    ...(cluster_log
      ? {
          writers: {
            leading: () => node_ref?.leading ?? false,
            writable: () => node_ref?.writable ?? false,
            leader_url: () => node_ref?.leader_url,
            // Half a lease: an append that cannot land by then is waiting for NATS, and the client is told so.
            answer_deadline_ms: Math.min(5000, Math.round(config.cluster!.lease_ttl_ms / 2)),
          },
        }
      : {}),
  });
  provideFormerKeys(app, former_keys);
  let listening_url = '';
  if (cluster_log && config.cluster) {
    const node_config = config.cluster;
    node_ref = new ClusterNode({
      node_id: node_config.node_id,
      // Where replicas send writes: the public URL, or the address listened on when the port was left to the system.
      url: () => (new URL(config.public_url).port === '0' ? listening_url : config.public_url),
      role: node_config.role,
      eligible: node_config.eligible,
      can_found: founder.genesis !== undefined,
      engine,
      store: engine_store as ReplicatedStore,
      log: cluster_log.log,
      lease: cluster_log.lease,
      on_lead: async () => {
        await engine.found(founder.genesis);
        await recordPaymentMode();
        operations.start();
        witnessing?.start();
      },
      on_fenced: (why) => fatal(new FencedError(`fenced: ${why}`), 'the lease'),
      on_diverged: (error) => fatal(asDiverged(error, engine.state.tick + 1), 'following the replicated log'),
      on_failed: (error) => fatal(error, 'coming to lead'),
      log_line: log,
    });
    // Everything the log holds is applied before anything is served; a store that is not this log's is refused.
    try {
      await node_ref.catchUp();
    } catch (error) {
      events.ledger.close();
      events.world.close();
      await chunks.close();
      await cluster_log.close();
      await store.close();
      release();
      throw error;
    }
  }
  server.off('request', answerStarting);
  server.on('request', app.listener);
  server.keepAliveTimeout = 65_000;
  limitConnections(server, { ...CONNECTION_LIMITS, ...config.connection_limits });
  // Engine time closes motions even when no request arrives; a growing log gets a new checkpoint every second.
  let pulses = 0;
  const pulse = setInterval(() => {
    void engine.pulse();
    checkpoints.latest();
    // Answers kept for retries live as long as their nonces (300 s): a minute late to go costs nothing.
    if (++pulses % 60 === 0) store.pruneKeptAnswers(clock());
  }, 1000);
  pulse.unref();
  // A replicated society's writer starts these when it comes to lead (ClusterNode's on_lead).
  if (!cluster_log) {
    operations.start();
    witnessing?.start();
  }
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const url = `http://${host}:${address.port}`;
  listening_url = url;
  // Now it follows the log and competes for the lease; a leader node leads before this resolves.
  await node_ref?.start();
  const daily_dispatch = await dailyDispatchFor(
    { daily_at_minutes: config.dispatch_daily_at_minutes, key_file: founder.key_file },
    {
      url: () => listening_url,
      clock,
      // A replica never publishes: only the node whose writes the society takes.
      writable: () => (node_ref ? node_ref.writable : engine.is_writer),
      founder_pubkey: () => engine.state.agents.get(engine.state.founder_agent_id)?.pubkey,
      last_dispatch_at_ms: () => engine.state.governance.dispatches.at(-1)?.at_ms,
      log,
    },
  );
  daily_dispatch?.start();
  return {
    url,
    engine,
    store,
    founder,
    operations,
    nonces,
    routes: app.routes,
    paths: app.paths,
    ...(node_ref ? { cluster: node_ref } : {}),
    async close() {
      await daily_dispatch?.stop();
      events.ledger.close();
      events.world.close();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      clearInterval(pulse);
      await witnessing?.stop();
      operations.stop();
      await chunks.close();
      await node_ref?.stop();
      await engine.drain();
      await cluster_log?.close();
      await store.close();
      release();
    },
  };
}

/** What stopped a follower: a tick that does not replay or verify here is a divergence, whatever threw it. */
function asDiverged(error: unknown, tick: number): DivergedLogError {
  return error instanceof DivergedLogError ? error : new DivergedLogError(tick, String(error));
}
