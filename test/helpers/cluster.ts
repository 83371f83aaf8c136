import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ClusterLog } from '../../api/cluster/cluster_setup.js';
import { hostClock } from '../../api/cluster/cluster_clock.js';
import { BucketLease, type LeaderLease, type LeaseBucket } from '../../api/cluster/leader_lease.js';
import type { LogStream } from '../../api/cluster/log_stream.js';
import type { LogIdentity } from '../../api/cluster/log_identity.js';
import { MemoryLeaseBucket } from '../../api/cluster/memory_lease_bucket.js';
import { MemoryLogStream } from '../../api/cluster/memory_log_stream.js';
import { StreamTickLog } from '../../api/cluster/stream_tick_log.js';
import type { TickLog } from '../../api/cluster/tick_log.js';
import { LOG_KEY_FILE } from '../../api/data_folder.js';
import { freePort } from '../../bench/nats_cluster.js';
import { startTestSociety, tempDir, type TestSociety } from './society.js';

/** The NATS cluster of the in-process tests: one log stream and one lease bucket that every node of a test shares. */
export interface MemoryCluster {
  stream: MemoryLogStream;
  /** The shared log as any node reads it. */
  log: TickLog;
  bucket: MemoryLeaseBucket;
  ttl_ms: number;
  /** The log's recorded verifier key, if the test checks nodes' log keys against one. */
  identity?: LogIdentity;
}

export function memoryCluster(ttl_ms = 1500): MemoryCluster {
  const stream = new MemoryLogStream();
  // JetStream removes an expired lease entry about a ttl after it expires; the same here.
  const bucket = new MemoryLeaseBucket(() => performance.now(), 2 * ttl_ms);
  return { stream, log: new StreamTickLog(stream, { clock: hostClock }), bucket, ttl_ms };
}

/**
 * A node's view of the shared log and lease with a switch that cuts it off, as a
 * process that lost its network would be: every call fails from then on (and the
 * node's retries go on failing until the cut is mended).
 */
export class NodeLink implements ClusterLog {
  cut = false;
  readonly log: TickLog;
  readonly lease: LeaderLease;
  readonly identity: LogIdentity | undefined;

  constructor(cluster: MemoryCluster) {
    this.identity = cluster.identity;
    const alive = () => {
      if (this.cut) throw new Error('the node lost its connection');
    };
    const shared = cluster.stream;
    const stream: LogStream = {
      publish: async (kind, data, msg_id, expect) => (alive(), shared.publish(kind, data, msg_id, expect)),
      lastSeq: async () => (alive(), shared.lastSeq()),
      get: async (seq) => (alive(), shared.get(seq)),
      // Cut off, a follower receives nothing until the link is mended (as over a partitioned network).
      consume: (from, deliver, on_error) =>
        shared.consume(
          from,
          async (message) => {
            while (this.cut) await new Promise((resolve) => setTimeout(resolve, 20));
            await deliver(message);
          },
          on_error,
        ),
    };
    this.log = new StreamTickLog(stream, { clock: hostClock });
    const bucket: LeaseBucket = {
      get: async () => (alive(), cluster.bucket.get()),
      create: async (value) => (alive(), cluster.bucket.create(value)),
      update: async (value, revision) => (alive(), cluster.bucket.update(value, revision)),
      delete: async (revision) => (alive(), cluster.bucket.delete(revision)),
    };
    this.lease = new BucketLease(bucket, cluster.ttl_ms, hostClock);
  }

  async close(): Promise<void> {}
}

export interface ClusterTestNode extends TestSociety {
  link: NodeLink;
  /** What stopped the node as a writer or follower (fenced, diverged), if anything did. */
  fatal: unknown[];
}

/**
 * A node of a replicated society in this process: real LMDB, real HTTP on a port chosen
 * first (its URL is what its lease advertises), the shared in-process log and lease.
 * A fatal stop is recorded, not thrown, so a test can watch a writer fence itself.
 */
export async function startClusterNode(
  cluster: MemoryCluster,
  options: {
    node_id: string;
    role: 'leader' | 'replica';
    eligible?: boolean;
    data_dir?: string;
    log_key_from?: string;
    /** The node's own view of the log, changed (a log that refuses something at the worst moment). */
    wrap_log?: (log: TickLog) => TickLog;
  },
): Promise<ClusterTestNode> {
  const port = await freePort();
  const data_dir = options.data_dir ?? tempDir();
  if (options.log_key_from) copyFileSync(join(options.log_key_from, LOG_KEY_FILE), join(data_dir, LOG_KEY_FILE));
  const link = new NodeLink(cluster);
  const wrapped = options.wrap_log?.(link.log);
  const cluster_log: ClusterLog = wrapped
    ? { log: wrapped, lease: link.lease, identity: link.identity, close: () => link.close() }
    : link;
  const fatal: unknown[] = [];
  const society = await startTestSociety({
    data_dir,
    start_ms: Date.now(),
    config: {
      port,
      public_url: `http://127.0.0.1:${port}`,
      cluster: {
        servers: ['nats://in-process'],
        role: options.role,
        node_id: options.node_id,
        log_name: 'test',
        log_replicas: 1,
        lease_ttl_ms: cluster.ttl_ms,
        eligible: options.eligible ?? true,
      },
    },
    start: { cluster_log, on_fatal: (error) => fatal.push(error) },
  });
  return Object.assign(society, { link, fatal });
}
