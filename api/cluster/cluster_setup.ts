import { connect, type NatsConnection } from '@nats-io/transport-node';
import type { ClusterConfig } from './cluster_config.js';
import type { LeaderLease } from './leader_lease.js';
import { NatsLease } from './nats_lease.js';
import { NatsTickLog } from './nats_tick_log.js';
import type { TickLog } from './tick_log.js';

export interface ClusterLog {
  log: TickLog;
  lease: LeaderLease;
  close(): Promise<void>;
}

/** Connects to the NATS servers and opens (creating them if need be) the tick stream and the lease bucket. */
export async function openClusterLog(config: ClusterConfig): Promise<ClusterLog> {
  let connection: NatsConnection;
  try {
    connection = await connect({
      servers: config.servers,
      name: `tessera ${config.node_id}`,
      // Keep trying for ever: a NATS node's restart must not stop a society that a quorum still serves.
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
    });
  } catch (error) {
    throw new Error(
      `cannot reach the NATS servers at ${config.servers.join(', ')} (LOG_URL): ${(error as Error).message}`,
    );
  }
  try {
    const log = await NatsTickLog.open(connection, {
      stream: `${config.log_name}_ticks`,
      replicas: config.log_replicas,
    });
    const lease = await NatsLease.open(
      connection,
      `${config.log_name}_lease`,
      config.lease_ttl_ms,
      config.log_replicas,
    );
    return { log, lease, close: () => connection.drain() };
  } catch (error) {
    await connection.close();
    throw new Error(`the NATS servers at ${config.servers.join(', ')} refused the log: ${(error as Error).message}`);
  }
}
