import { copyFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReplicatedTick } from '../../engine/index.js';
import type { ClusterLog } from '../../api/cluster/cluster_setup.js';
import { MemoryLease, type LeaderLease } from '../../api/cluster/leader_lease.js';
import { MemoryTickLog } from '../../api/cluster/memory_tick_log.js';
import type { LogFollower, TickLog } from '../../api/cluster/tick_log.js';
import { LOG_KEY_FILE } from '../../api/data_folder.js';
import { freePort } from '../../bench/nats_cluster.js';
import { startTestSociety, tempDir, type TestSociety } from './society.js';

/** The NATS cluster of the in-process tests: one tick log and one lease that every node of a test shares. */
export interface MemoryCluster {
  log: MemoryTickLog;
  lease_key: object;
  ttl_ms: number;
}

export function memoryCluster(ttl_ms = 1500): MemoryCluster {
  return { log: new MemoryTickLog(), lease_key: {}, ttl_ms };
}

/**
 * A node's view of the shared log and lease with a switch that cuts it off, as a
 * process that died or lost its network would be: every call fails from then on.
 */
export class NodeLink implements ClusterLog {
  cut = false;
  readonly log: TickLog;
  readonly lease: LeaderLease;

  constructor(cluster: MemoryCluster) {
    const alive = () => {
      if (this.cut) throw new Error('the node lost its connection');
    };
    const shared = cluster.log;
    const followers: LogFollower[] = [];
    this.log = {
      append: async (tick: ReplicatedTick, term: string) => (alive(), shared.append(tick, term)),
      lastTick: async () => (alive(), shared.lastTick()),
      read: async (tick: number) => (alive(), shared.read(tick)),
      follow: (after, apply, on_error) => {
        const follower = shared.follow(after, async (tick) => (alive(), apply(tick)), on_error);
        followers.push(follower);
        return follower;
      },
      close: async () => undefined,
    };
    const lease = new MemoryLease(cluster.lease_key, cluster.ttl_ms, () => performance.now());
    this.lease = {
      ttl_ms: lease.ttl_ms,
      holder: async () => (alive(), lease.holder()),
      take: async (node, url) => (alive(), lease.take(node, url)),
      renew: async () => (alive(), lease.renew()),
      release: async () => (alive(), lease.release()),
    };
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
  },
): Promise<ClusterTestNode> {
  const port = await freePort();
  const data_dir = options.data_dir ?? tempDir();
  if (options.log_key_from) copyFileSync(join(options.log_key_from, LOG_KEY_FILE), join(data_dir, LOG_KEY_FILE));
  const link = new NodeLink(cluster);
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
    start: { cluster_log: link, on_fatal: (error) => fatal.push(error) },
  });
  return Object.assign(society, { link, fatal });
}
