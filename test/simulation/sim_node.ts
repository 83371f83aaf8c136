import type { Context } from 'koa';
import { Authenticator } from '../../api/authenticate.js';
import { ClusterNode } from '../../api/cluster/cluster_node.js';
import { EXIT_CODES } from '../../api/cluster/exit_codes.js';
import { BucketLease } from '../../api/cluster/leader_lease.js';
import { ReplicatedStore } from '../../api/cluster/replicated_store.js';
import { StreamTickLog } from '../../api/cluster/stream_tick_log.js';
import { FencedError } from '../../api/cluster/tick_log.js';
import { NonceBook } from '../../api/nonces.js';
import { RefusalError, statusOf } from '../../api/refusal_error.js';
import { RetryBook } from '../../api/retries/retry_book.js';
import { SignatureVerifier } from '../../api/signature_verifier.js';
import { DivergedLogError, Engine, findAct, type EngineStore, type MemoryStore } from '../../engine/index.js';
import { SIMULATION_EPOCH_MS, type Prologue } from './prologue.js';
import type { Random } from './random.js';
import type { Scheduler } from './scheduler.js';
import type { SimNats } from './sim_nats.js';
import { UnfencedTickLog } from './unfenced_tick_log.js';

/** A signed act or a nonce fetch, as a client sends it to a node. */
export type SimRequest =
  | { kind: 'nonce'; agent_id: string }
  | { kind: 'act'; agent_id: string; nonce: string; signature: string; body: string; payload: unknown };

/** What a node answers: an HTTP status, its headers, the body's fields the client reads. */
export interface SimAnswer {
  status: number;
  headers: Record<string, string>;
  body: Record<string, unknown>;
}

export interface SimNodeOptions {
  id: string;
  role: 'leader' | 'replica';
  lease_ttl_ms: number;
  /** The rate this machine's clock runs at against simulated time, and its wall clock's offset. */
  clock_rate: number;
  clock_offset_ms: number;
  fenced: boolean;
}

interface Incarnation {
  owner: string;
  engine: Engine;
  cluster: ClusterNode;
  nonces: NonceBook;
  retries: RetryBook;
  authenticator: Authenticator;
  /** Requests being answered, failed with a reset connection if the process dies. */
  in_flight: Set<(answer: SimAnswer | Error) => void>;
}

export interface NodeExit {
  node: string;
  at_ms: number;
  code: number | 'killed';
  why: string;
}

/** The act the simulated agents perform: ungated, and each one names a key of its own, so each lands once or twice visibly. */
const ACT = findAct('key_backup_register')!;

/**
 * One Tessera node of the simulated cluster: the real Engine, ReplicatedStore,
 * ClusterNode, StreamTickLog, BucketLease, NonceBook, RetryBook and Authenticator, as
 * api/server.ts wires them, on a MemoryStore that outlives the process (its disk), with
 * the simulator's clock and NATS. It answers a signed act as api/act_routes.ts does
 * (nonce, then a retry's kept answer, then the engine) behind the same writer rules as
 * api/cluster/replica_writes.ts. It can be paused, killed and started again; a process
 * that stops on its own (fenced, diverged) is started again by its supervisor.
 */
export class SimNode {
  private incarnation: Incarnation | undefined;
  private generation = 0;
  readonly exits: NodeExit[] = [];

  constructor(
    readonly options: SimNodeOptions,
    readonly store: MemoryStore,
    private readonly prologue: Prologue,
    private readonly scheduler: Scheduler,
    private readonly nats: SimNats,
    private readonly random: Random,
    private readonly on_exit: (exit: NodeExit) => void,
  ) {}

  get running(): Incarnation | undefined {
    return this.incarnation;
  }

  /** The owner of this process's events now (paused together, dropped when it dies). */
  get owner(): string | undefined {
    return this.incarnation?.owner;
  }

  async start(): Promise<void> {
    const owner = `${this.options.id}#${++this.generation}`;
    const clock = this.scheduler.clockFor(owner, this.options.clock_rate);
    const wall_ms = () => SIMULATION_EPOCH_MS + this.options.clock_offset_ms + clock.now_ms();
    const link = this.nats.link(owner);
    const alive = () => this.incarnation?.owner === owner;
    const local = guardedStore(this.store, alive);
    const replicated = new ReplicatedStore(local);
    const engine = await Engine.open(replicated, this.prologue.genesis, {
      writer: false,
      clock: wall_ms,
      snapshot_every_ticks: 1000,
      on_fatal: (error) => this.exit(owner, error),
    });
    const log_options = { clock };
    const log = this.options.fenced
      ? new StreamTickLog(link.stream, log_options)
      : new UnfencedTickLog(link.stream, log_options);
    let terms = 0;
    const lease = new BucketLease(link.bucket, this.options.lease_ttl_ms, clock, () => `${owner}/${++terms}`);
    const cluster = new ClusterNode({
      node_id: this.options.id,
      url: () => this.options.id,
      role: this.options.role,
      eligible: true,
      can_found: true,
      engine,
      store: replicated,
      log,
      lease,
      clock,
      on_lead: () => engine.found(this.prologue.genesis),
      on_fenced: (why) => this.exit(owner, new FencedError(`fenced: ${why}`)),
      on_diverged: (error) =>
        this.exit(owner, error instanceof DivergedLogError ? error : new DivergedLogError(0, String(error))),
      on_failed: (error) => this.exit(owner, error),
    });
    const nonces = new NonceBook({
      clock: wall_ms,
      secret: Buffer.alloc(32, this.generation + this.options.id.charCodeAt(0) * 97),
    });
    // The simulated agents sign no reads: a small memory of them is made faster at each start.
    const retries = new RetryBook(this.store, nonces.nonce_ttl_seconds, 100);
    const authenticator = new Authenticator(() => engine.state, nonces, new SignatureVerifier());
    this.incarnation = { owner, engine, cluster, nonces, retries, authenticator, in_flight: new Set() };
    try {
      await cluster.catchUp();
      if (!alive()) return;
      await cluster.start();
    } catch (error) {
      this.exit(owner, error);
    }
  }

  /** SIGKILL: the process is gone at once; its disk stays. */
  kill(why: string): void {
    if (this.incarnation) this.die(this.incarnation, 'killed', why);
  }

  /**
   * A request arriving: answered as the node's process answers it (a paused process
   * answers nothing until it resumes: the caller is the network, which delivers it as
   * this process's event).
   */
  handle(request: SimRequest): Promise<SimAnswer | Error> {
    const running = this.incarnation;
    if (!running) return Promise.resolve(new TypeError('fetch failed: connection refused'));
    return new Promise((resolve) => {
      running.in_flight.add(resolve);
      this.answer(running, request)
        .then(
          (answer) => resolve(answer),
          (error) => resolve(error instanceof RefusalError ? refusal(error) : internal(error)),
        )
        .finally(() => running.in_flight.delete(resolve));
    });
  }

  private async answer(running: Incarnation, request: SimRequest): Promise<SimAnswer> {
    const { cluster, engine, nonces, authenticator, retries } = running;
    // Writer-only requests (api/cluster/replica_writes.ts): a nonce is issued by a leader even when it cannot write.
    if (!cluster.leading) {
      const url = cluster.leader_url;
      if (url) return { status: 307, headers: { location: url }, body: {} };
      return notLeader();
    }
    if (request.kind === 'nonce')
      return { status: 200, headers: {}, body: { nonce: nonces.issue(request.agent_id).nonce } };
    if (!cluster.writable) return notLeader();
    const full = engine.queueFullRefusal();
    if (full) return refusal(new RefusalError(full));
    const ctx = signedContext(request);
    let auth;
    try {
      auth = authenticator.authenticate(ctx, request.body, ACT.signer, request.payload);
    } catch (error) {
      const found =
        error instanceof RefusalError && error.refusal.code === 'NONCE_INVALID'
          ? await retries.find(ctx, request.body)
          : undefined;
      if (!found || found.kind !== 'outcome') throw error;
      if (!found.outcome.ok) return { status: 409, headers: { replayed: 'true' }, body: { error: found.outcome.code } };
      // A replayed answer's receipt is issued afresh, against this node's tree now, as the act route does.
      const ledger = found.outcome.ledger;
      const receipt = ledger ? receiptOf(engine, this.store, ledger.first_seq) : undefined;
      return { status: 200, headers: { replayed: 'true' }, body: { ledger, ...(receipt ? { receipt } : {}) } };
    }
    const kept = retries.toKeep(auth);
    const submitted = engine.submit({
      act: ACT.name,
      actor: auth.actor,
      payload: request.payload,
      proof: auth.proof,
      consumed_nonce: auth.consumed_nonce,
      keep_answer: kept,
    });
    retries.submitted(kept, submitted);
    const outcome = await submitted;
    if (!outcome.ok) return refusal(new RefusalError(outcome));
    const first = outcome.entries[0];
    return {
      status: 200,
      headers: {},
      body: {
        ledger: first ? { first_seq: first.seq, last_seq: outcome.entries.at(-1)!.seq } : null,
        ...(first ? { receipt: receiptOf(engine, this.store, first.seq) } : {}),
      },
    };
  }

  private exit(owner: string, error: unknown): void {
    const running = this.incarnation;
    if (running?.owner !== owner) return;
    const code =
      error instanceof FencedError
        ? EXIT_CODES.fenced
        : error instanceof DivergedLogError
          ? EXIT_CODES.diverged
          : EXIT_CODES.internal;
    this.die(running, code, String(error));
  }

  private die(running: Incarnation, code: NodeExit['code'], why: string): void {
    this.incarnation = undefined;
    this.scheduler.kill(running.owner);
    running.engine.stopWriting();
    for (const fail of running.in_flight) fail(new TypeError('fetch failed: connection reset'));
    const exit = { node: this.options.id, at_ms: this.scheduler.now_ms, code, why };
    this.exits.push(exit);
    this.on_exit(exit);
    // Its supervisor (systemd, a container runtime) starts it again after a moment.
    this.scheduler.at(this.random.between(500, 3000), undefined, () => void this.start());
  }
}

/** What a receipt proves, without its signature: the entry's leaf in the tree of this size, with this root. */
export interface SimReceipt {
  seq: number;
  size: number;
  root: Uint8Array;
  proof: Uint8Array[];
}

/**
 * As the transparency log issues it: against the tree at the store's durable head, not the
 * engine's tree, which already holds the entries of a tick still on its way to the log.
 */
function receiptOf(engine: Engine, store: MemoryStore, seq: number): SimReceipt {
  const size = store.ledgerHead().seq;
  return { seq, size, root: engine.log_tree.root(size), proof: engine.log_tree.inclusionProof(seq - 1, size) };
}

function notLeader(): SimAnswer {
  return { status: 503, headers: { 'retry-after': '1' }, body: { error: 'NOT_LEADER' } };
}

function refusal(error: RefusalError): SimAnswer {
  const headers: Record<string, string> = error.refusal.code === 'QUEUE_FULL' ? { 'retry-after': '1' } : {};
  return {
    status: statusOf(error.refusal.code as Parameters<typeof statusOf>[0]),
    headers,
    body: { error: error.refusal.code },
  };
}

function internal(error: unknown): SimAnswer {
  return { status: 500, headers: {}, body: { error: 'INTERNAL', message: String(error) } };
}

/** The part of a Koa context the authenticator and the retry book read: the signed request's headers and line. */
function signedContext(request: Extract<SimRequest, { kind: 'act' }>): Context {
  const headers: Record<string, string> = {
    'x-agent-id': request.agent_id,
    'x-nonce': request.nonce,
    'x-signature': request.signature,
  };
  return {
    method: 'POST',
    originalUrl: '/api/v1/act',
    get: (name: string) => headers[name.toLowerCase()] ?? '',
    set: () => undefined,
  } as unknown as Context;
}

/** The node's disk as one process sees it: once that process is dead, it writes nothing more. */
function guardedStore(store: MemoryStore, alive: () => boolean): EngineStore {
  return new Proxy(store, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (typeof value !== 'function') return value;
      if (property === 'commitTick' || property === 'appendTreeHashes')
        return (...args: unknown[]) => (alive() ? value.apply(target, args) : new Promise(() => undefined));
      return value.bind(target);
    },
  });
}
