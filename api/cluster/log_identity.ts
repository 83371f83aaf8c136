import { existsSync, unlinkSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { NatsConnection } from '@nats-io/transport-node';
import { jetstream } from '@nats-io/jetstream';
import { Kvm, type KV } from '@nats-io/kv';
import { LOG_KEY_FILE, StartRefusedError } from '../data_folder.js';
import { createLogKey, loadLogKey, type LogKey } from '../log/log_key.js';
import type { ClusterConfig } from './cluster_config.js';

/** The key of the bucket's one entry, the recorded verifier key. */
export const LOG_VKEY_KEY = 'log_vkey';

/**
 * The verifier key a replicated society's log is signed under, recorded with the log by
 * the first node to start. Without it, nodes started at once would each make a key and
 * sign the same tree under several: every node claims, and only the first claim records.
 */
export interface LogIdentity {
  /** Records vkey if no key is recorded yet; returns the key recorded, this one or an earlier node's. */
  claim(vkey: string): Promise<string>;
  /** Where the key is recorded, in words an operator can act on. */
  readonly where: string;
}

/** The in-process tests' record, shared by every node of a test as the NATS bucket would be. */
export class MemoryLogIdentity implements LogIdentity {
  private recorded: string | undefined;
  readonly where = 'the in-process log identity';

  async claim(vkey: string): Promise<string> {
    this.recorded ??= vkey;
    return this.recorded;
  }
}

export interface NatsLogIdentityOptions {
  /** How long a NATS cluster that is starting or electing is waited for before start-up gives up. */
  give_up_after_ms?: number;
  log?: (line: Record<string, unknown>) => void;
}

/**
 * The record as a JetStream key-value bucket of its own, with no ttl (the lease's bucket
 * expires its entries), written once with `create`, which the server refuses once the
 * key exists. The bucket is opened at the first claim, so that a NATS cluster still
 * forming is waited for the same way whether it fails the opening or the claim.
 */
export class NatsLogIdentity implements LogIdentity {
  private kv: KV | undefined;
  readonly where: string;

  constructor(
    private readonly connection: NatsConnection,
    private readonly bucket: string,
    private readonly replicas: number,
    private readonly options: NatsLogIdentityOptions = {},
  ) {
    this.where = `the NATS key-value bucket ${bucket}, key ${LOG_VKEY_KEY} (nats kv get ${bucket} ${LOG_VKEY_KEY})`;
  }

  async claim(vkey: string): Promise<string> {
    const give_up_after_ms = this.options.give_up_after_ms ?? 60_000;
    const started_ms = performance.now();
    for (let attempt = 0; ; attempt++) {
      try {
        return await this.claimOnce(vkey);
      } catch (error) {
        if (!isTransient(error)) throw error;
        const retry_in_ms = Math.min(5000, 250 * 2 ** attempt);
        if (performance.now() - started_ms + retry_in_ms > give_up_after_ms)
          throw new Error(
            `could not read or record the log's verifier key in ${this.where} within ${give_up_after_ms / 1000} s ` +
              `(last: ${messageOf(error)}): the NATS cluster has no JetStream quorum, or JetStream is off. ` +
              'Start enough NATS nodes with JetStream (docs/scaling.md, "The NATS cluster"), then start this node again',
          );
        this.options.log?.({
          cluster: 'log key claim retried',
          bucket: this.bucket,
          why: messageOf(error),
          attempt,
          retry_in_ms,
        });
        await sleep(retry_in_ms);
      }
    }
  }

  private async claimOnce(vkey: string): Promise<string> {
    // Short requests: of several nodes creating the bucket at once, all but one go unanswered, and are asked again.
    this.kv ??= await new Kvm(jetstream(this.connection, { timeout: 2000 })).create(this.bucket, {
      history: 1,
      replicas: this.replicas,
      // Read through the stream's leader (as the lease is): a replica behind it could answer "nothing recorded" just
      // after another node recorded its key, and this node's create would then be refused with nothing read.
      allow_direct: false,
    });
    const recorded = await this.recorded(this.kv);
    if (recorded !== undefined) return recorded;
    try {
      await this.kv.create(LOG_VKEY_KEY, vkey);
      return vkey;
    } catch (error) {
      // Refused because another node recorded first, or ours landed although its answer was lost: either way it is read.
      const now_recorded = await this.recorded(this.kv);
      if (now_recorded !== undefined) return now_recorded;
      throw error;
    }
  }

  private async recorded(kv: KV): Promise<string | undefined> {
    const entry = await kv.get(LOG_VKEY_KEY);
    return entry?.operation === 'PUT' ? entry.string() : undefined;
  }
}

/** What a NATS cluster that is starting, or electing a stream leader, answers for a while; anything else is final. */
function isTransient(error: unknown): boolean {
  for (let cause: unknown = error; cause instanceof Error; cause = cause.cause)
    if (
      /timeout|no responders|jetstream is not enabled|temporarily unavailable|insufficient resources|no suitable peers/i.test(
        cause.message,
      )
    )
      return true;
  return false;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export interface NodeOfLog {
  role: ClusterConfig['role'];
  /** Ticks the replicated log holds already. */
  log_ticks: number;
  /** Absent (the in-process adapters that predate it): the key is not checked against a record. */
  identity: LogIdentity | undefined;
}

/**
 * The log key a node of a replicated society signs with, settled before it writes or
 * serves anything. A replica never makes one: its checkpoints must verify under the
 * leader's. A leader makes one only for a log that is new. Either claims its key, and a
 * node whose key is not the recorded one is refused, so however many nodes start at
 * once, the log is signed under one key.
 */
export async function loadNodeLogKey(
  data_dir: string,
  origin: string,
  configured: boolean,
  node: NodeOfLog,
): Promise<LogKey> {
  const file = join(data_dir, LOG_KEY_FILE);
  let made_now = false;
  if (!existsSync(file)) {
    if (node.role === 'replica')
      throw new StartRefusedError(
        `${file} is missing, and a replica (ROLE=replica) never makes a log key: its checkpoints must verify under ` +
          `the leader's. Copy log.key from the leader's data folder to ${file} (mode 0600), then start again (docs/scaling.md)`,
      );
    if (node.log_ticks > 0)
      throw new StartRefusedError(
        `the replicated log holds ${node.log_ticks} ticks but ${file} is missing: copy log.key from the leader's data ` +
          `folder to ${file} (mode 0600), then start again (docs/scaling.md)`,
      );
    await createLogKey(data_dir, origin);
    made_now = true;
  }
  const key = await loadLogKey(data_dir, origin, configured);
  if (!node.identity) return key;
  // A claim that failed may still have recorded the key made now: it is kept, and the next start claims it again.
  const recorded = await node.identity.claim(key.vkey);
  if (recorded === key.vkey) return key;
  if (made_now) unlinkSync(file);
  throw new StartRefusedError(
    `${made_now ? 'the log key this node made' : `the log key in ${file}`} (${key.vkey}) is not the society's: ` +
      `its log is signed under ${recorded}, recorded in ${node.identity.where}, and checkpoints under another key ` +
      `would verify for no reader or witness of this log.${made_now ? ` The key made now was removed.` : ''} Copy ` +
      `log.key from the data folder of a node whose key is the recorded one (its GET /log/key answers it) to ${file}, ` +
      'then start again (docs/scaling.md)',
  );
}
