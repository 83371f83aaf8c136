import type { RequestListener } from 'node:http';
import Koa from 'koa';
import compose from 'koa-compose';
import { koaBody } from 'koa-body';
import { mountActRoutes } from './act_routes.js';
import { Authenticator } from './authenticate.js';
import { errorsMiddleware, type ErrorReporter } from './errors_middleware.js';
import { requireJsonBodies } from './json_only.js';
import { limitBodyNesting } from './nesting_limit.js';
import type { NonceBook } from './nonces.js';
import { ledgerRoute, mountReadRoutes } from './read_routes.js';
import { ledgerReaderOf, readContextOf } from './read_context.js';
import { mountReads } from './read_mount.js';
import { SERVED_READS } from './served_reads.js';
import { mountMembershipRoutes } from './payments/membership_routes.js';
import type { Processor } from './payments/processor.js';
import { mountObserverRoutes, visitorIdOf } from './observer/observer_routes.js';
import { mountGrantRoutes } from './observer/grant_routes.js';
import { mountPageRoutes } from './pages/page_routes.js';
import { mountMachineRoutes } from './pages/machine_routes.js';
import { MCP_PATH, mountMcpEndpoint, type McpLimits } from './mcp_endpoint.js';
import { mountLogRoutes } from './log/log_routes.js';
import { LogTiles } from './log/log_tiles.js';
import { tileFastRead } from './log/tile_fast_path.js';
import { chunkFastRead } from './chunk_fast_read.js';
import { fastReads, type FastPath } from './fast_reads.js';
import { compressAnswers } from './answer_encoding.js';
import { LedgerPages } from './ledger_pages.js';
import { MotionListAnswer } from './motion_list_answer.js';
import { keptPageRead, ledgerRead, motionListRead } from './read_fast_answers.js';
import type { FrameDeps } from './pages/frame.js';
import { StatePages } from './pages/state_pages.js';
import { PAGE_CATALOGUE } from './pages/page_catalogue.js';
import { mountOperatorRoutes, type Operations } from './operations/operator.js';
import type { Metrics } from './metrics.js';
import { Watchers } from './observer/watchers.js';
import { readLimit, readLimiter, securityHeaders, type NonceLimits, type ReadLimits } from './read_limiter.js';
import { beginRequestMeasure, readWeightsOf } from './read_cost.js';
import { registrationLimiter, type RegistrationLimits } from './registration_limiter.js';
import type { ChunkCache } from './chunk_cache.js';
import { Routes } from './routes.js';
import { mountCheckpointRoutes } from './log/checkpoint_routes.js';
import type { EventHub } from './events/event_hub.js';
import type { EventStreamLimits } from './events/event_limits.js';
import type { WorldChanges } from './events/world_changes.js';
import { mountEventRoutes } from './events/event_routes.js';
import { RetryBook } from './retries/retry_book.js';
import type { TransparencyLog } from './log/transparency_log.js';
import { SignatureVerifier } from './signature_verifier.js';
import { replicaWrites, type WriterDirectory } from './cluster/replica_writes.js';
import { type Engine, type LmdbStore, type ReadContext, register } from '../engine/index.js';

export interface AppDeps {
  engine: Engine;
  processor: Processor | undefined;
  chunks: ChunkCache;
  store: LmdbStore;
  nonces: NonceBook;
  clock: () => number;
  body_limit_bytes: number;
  started_at_ms: number;
  report: ErrorReporter;
  cookie_secret: string;
  read_limits: ReadLimits;
  /** What one POST /mcp may ask for; absent, MCP_LIMITS. */
  mcp_limits?: Readonly<McpLimits>;
  registration_limits: RegistrationLimits;
  nonce_limits: NonceLimits;
  public_url: string;
  operations: Operations;
  metrics: Metrics;
  /** The ledger as a transparency log: tree, checkpoints, witnesses' cosignatures. */
  transparency: TransparencyLog;
  /** The ledger and the world's changes as Server-Sent Events, fed by the engine's durable ticks. */
  events: { ledger: EventHub; world: WorldChanges; limits: Readonly<EventStreamLimits> };
  /** Structured lines about what happened (never bodies, keys or session ids). */
  log: (line: Record<string, unknown>) => void;
  /** A node of a replicated society: who writes. Absent on the embedded default, where this node always does. */
  writers?: WriterDirectory;
}

export interface TesseraApp extends Koa {
  /** Every route, as its router lists them (for the tests that try every one). */
  routes: ReturnType<Routes['listing']>;
  /** What the server listens with: the fast path (log tiles, chunks, kept reads), then Koa for everything it does not answer. */
  listener: RequestListener;
  /** The listener's two paths, for the tests that hold them equal: the fast path alone, and Koa alone. */
  paths: { fast: FastPath; general: RequestListener };
}

/**
 * The reads kept between state changes, answered in front of Koa with their routes'
 * answers (read_fast_answers.ts): the front page for a new visitor, the motion list,
 * ledger pages.
 */
function keptReads(
  deps: AppDeps,
  kept: FrameDeps & { state_pages: StatePages; ledger_pages: LedgerPages; contextOf: () => ReadContext },
) {
  const read = (name: string) => SERVED_READS.find((served) => served.name === name)!;
  const home = PAGE_CATALOGUE.find((page) => page.path === '/')!;
  const motions = new MotionListAnswer(read('motion_list'), () => deps.engine.state, kept.contextOf);
  return [
    keptPageRead(home, { state_pages: kept.state_pages, frame: kept, cookie_key: deps.cookie_secret }),
    motionListRead(read('motion_list'), motions, deps.clock),
    ledgerRead(read('ledger_read'), kept.ledger_pages),
  ];
}

/** The app: its Koa stack, the routes it serves, and the listener with the fast path in front. */
export function createApp(deps: AppDeps): TesseraApp {
  const app = new Koa();
  app.proxy = false;
  // Cookies are signed with the configured (or generated) secret: Koa's keygrip checks them.
  app.keys = [deps.cookie_secret];
  // Koa would print every error itself; ours go through one reporter that never logs bodies.
  app.silent = true;
  const authenticator = new Authenticator(() => deps.engine.state, deps.nonces, new SignatureVerifier());
  const json_body = compose([
    requireJsonBodies(),
    koaBody({
      json: true,
      multipart: false,
      urlencoded: false,
      text: false,
      jsonLimit: deps.body_limit_bytes,
      jsonStrict: false,
    }),
    limitBodyNesting(),
  ]);
  const router = new Routes(json_body);
  const ledger = ledgerReaderOf(deps.store);
  const contextOf = () => readContextOf(deps, ledger);
  const ledger_pages = new LedgerPages(ledger);
  mountReads(router, SERVED_READS, contextOf, { ledger_read: ledgerRoute(ledger_pages) });
  mountReadRoutes(router, deps);
  // Mounted before the act's own handler on the same route, so a refused registration spends nothing.
  router.post(register.rest!.path, registrationLimiter(deps.registration_limits, deps.clock));
  const retries = new RetryBook(deps.store, deps.nonces.nonce_ttl_seconds);
  mountActRoutes(router, {
    engine: deps.engine,
    authenticator,
    log: deps.transparency,
    clock: deps.clock,
    retries,
    ...(deps.writers ? { answer_deadline_ms: deps.writers.answer_deadline_ms } : {}),
  });
  mountCheckpointRoutes(router, deps.transparency);
  mountEventRoutes(router, deps.events);
  const payment_deps = { engine: deps.engine, authenticator, processor: deps.processor, report: deps.report };
  mountMembershipRoutes(router, payment_deps);
  const watchers = new Watchers(deps.clock);
  const site = { engine: deps.engine, store: deps.store, watchers, public_url: deps.public_url };
  const observer_deps = { ...site, processor: deps.processor, log: deps.log };
  mountObserverRoutes(router, observer_deps);
  const frame_deps = { ...site, read: contextOf };
  const page_deps = { ...frame_deps, state_pages: new StatePages(frame_deps) };
  mountMachineRoutes(router, { engine: deps.engine, public_url: deps.public_url, read: contextOf });
  const read_limit = readLimit(deps.read_limits, deps.clock);
  const read_weights = readWeightsOf(deps.read_limits);
  mountMcpEndpoint(router, {
    contextOf,
    read_limit,
    read_weights,
    public_url: deps.public_url,
    ...(deps.mcp_limits ? { limits: deps.mcp_limits } : {}),
  });
  const tiles = new LogTiles({ tree: () => deps.engine.log_tree, size: () => ledger.head().seq, ledger });
  mountLogRoutes(router, tiles);
  mountOperatorRoutes(router, { operations: deps.operations, authenticator, engine: deps.engine });
  router.get('/metrics', async (ctx) => {
    ctx.type = deps.metrics.registry.contentType;
    ctx.body = await deps.metrics.registry.metrics();
  });
  mountPageRoutes(router, page_deps);
  mountGrantRoutes(router, { engine: deps.engine, authenticator, public_url: deps.public_url, visitorOf: visitorIdOf });

  app.use(deps.metrics.middleware());
  app.use(securityHeaders());
  app.use(errorsMiddleware(deps.report));
  // Outside the read limiter, which so measures answers as identity; it charges its own CPU (answer_encoding.ts).
  app.use(compressAnswers(read_limit, read_weights));
  if (deps.writers) app.use(replicaWrites(deps.writers));
  app.use(readLimiter(read_limit, read_weights, MCP_PATH));
  // Bodies are parsed by the routes that take them (Routes.post), not for every request.
  app.use(router.middleware());
  // app.proxy is false: Koa's ctx.ip is the socket's address, and so is the fast path's.
  const kept = keptReads(deps, { ...page_deps, ledger_pages, contextOf });
  const fast = fastReads([tileFastRead(tiles), chunkFastRead(deps.chunks), ...kept], {
    read_limit,
    read_weights,
    metrics: deps.metrics,
    client_ip: (req) => req.socket.remoteAddress || '',
  });
  const general = app.callback();
  const listener: RequestListener = (req, res) => {
    if (fast(req, res)) return;
    beginRequestMeasure(req);
    void general(req, res);
  };
  return Object.assign(app, { routes: router.listing(), listener, paths: { fast, general } });
}
