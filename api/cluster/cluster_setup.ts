import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { ClusterConfig } from './cluster_config.js';
import type { LeaderLease } from './leader_lease.js';
import { NatsLogIdentity, type LogIdentity } from './log_identity.js';
import { backoffMs, hostClock, type ClusterClock } from './cluster_clock.js';
import { openNatsLease } from './nats_lease.js';
import { openNatsTickLog } from './nats_tick_log.js';
import type { TickLog } from './tick_log.js';

export interface ClusterLog {
  log: TickLog;
  lease: LeaderLease;
  /** The log's recorded verifier key; absent, a node's log key is not checked against one. */
  identity?: LogIdentity;
  close(): Promise<void>;
}

/**
 * Connects to the NATS servers and opens (creating them if need be) the tick stream and the lease bucket; the
 * identity bucket is opened at start-up's claim, which waits for a NATS cluster still forming (logged with `log`).
 */
export async function openClusterLog(
  config: ClusterConfig,
  log?: (line: Record<string, unknown>) => void,
  clock: ClusterClock = hostClock,
): Promise<ClusterLog> {
  const where = `the NATS servers at ${config.servers.join(', ')} (LOG_URL)`;
  // A NATS cluster still starting (JetStream not ready, a stream leader being elected) is waited for, logged.
  for (let attempt = 0; ; attempt++) {
    try {
      return await openOnce(config, log, clock);
    } catch (error) {
      const wait_ms = backoffMs(attempt + 3);
      log?.({ cluster: 'waiting for NATS', node: config.node_id, where, attempt, error: String(error), wait_ms });
      await clock.sleep(wait_ms);
    }
  }
}

async function openOnce(
  config: ClusterConfig,
  log: ((line: Record<string, unknown>) => void) | undefined,
  clock: ClusterClock,
): Promise<ClusterLog> {
  const connection: NatsConnection = await connect({
    servers: config.servers,
    name: `tessera ${config.node_id}`,
    // Keep trying for ever: a NATS node's restart must not stop a society that a quorum still serves.
    maxReconnectAttempts: -1,
    reconnectTimeWait: 250,
  });
  try {
    const on_retry = (what: string, error: unknown, attempt: number) => {
      // Every tenth try: a NATS election retries a call a dozen times in a few seconds.
      if (attempt % 10 === 0) log?.({ cluster: 'retrying', node: config.node_id, what, attempt, error: String(error) });
    };
    const tick_log = await openNatsTickLog(connection, {
      stream: `${config.log_name}_ticks`,
      replicas: config.log_replicas,
      clock,
      on_retry,
    });
    const lease = await openNatsLease(
      connection,
      `${config.log_name}_lease`,
      config.lease_ttl_ms,
      config.log_replicas,
      clock,
    );
    const identity = new NatsLogIdentity(connection, `${config.log_name}_identity`, config.log_replicas, { log });
    return { log: tick_log, lease, identity, close: () => connection.drain() };
  } catch (error) {
    await connection.close();
    throw error;
  }
}
