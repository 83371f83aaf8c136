import { hostname } from 'node:os';
import { z } from 'zod';
import type { NodeRole } from './cluster_node.js';

/** A replicated society's settings; absent from Config, the embedded default (LMDB only). */
export interface ClusterConfig {
  /** NATS servers, comma-separated nats:// URLs (several: the client fails over between them). */
  servers: string[];
  role: NodeRole;
  node_id: string;
  /** Names the stream (`<name>_ticks`, subjects `.ticks` and `.terms`), the lease bucket (`<name>_lease`) and the log key's record (`<name>_identity`). */
  log_name: string;
  /** Copies of each tick the NATS cluster keeps before a tick counts (a quorum of them acknowledges). */
  log_replicas: number;
  lease_ttl_ms: number;
  /** false: this node never leads. */
  eligible: boolean;
}

export const ClusterEnvSchema = {
  LOG_URL: z
    .string()
    .regex(/^nats:\/\/[^\s,]+(,nats:\/\/[^\s,]+)*$/, 'must be nats://host:port, or several joined by commas')
    .optional(),
  ROLE: z.enum(['leader', 'replica']).default('leader'),
  NODE_ID: z
    .string()
    .regex(/^[A-Za-z0-9_.-]{1,64}$/, 'letters, digits, dot, dash and underscore, at most 64')
    .optional(),
  LOG_NAME: z
    .string()
    .regex(/^[A-Za-z0-9_-]{1,32}$/, 'letters, digits, dash and underscore, at most 32')
    .default('tessera'),
  LOG_REPLICAS: z.coerce.number().int().min(1).max(5).default(3),
  LEASE_TTL_MS: z.coerce.number().int().min(300).max(120_000).default(10_000),
  FAILOVER: z.enum(['on', 'off']).default('on'),
};

type ClusterEnv = z.infer<z.ZodObject<typeof ClusterEnvSchema>>;

export function clusterConfigOf(env: ClusterEnv, port: number): ClusterConfig | undefined {
  if (!env.LOG_URL) {
    if (env.ROLE === 'replica')
      throw new Error('bad configuration: ROLE=replica needs LOG_URL (the NATS servers to follow)');
    return undefined;
  }
  return {
    servers: env.LOG_URL.split(','),
    role: env.ROLE,
    node_id: env.NODE_ID ?? `${hostname()}-${port}`,
    log_name: env.LOG_NAME,
    log_replicas: env.LOG_REPLICAS,
    lease_ttl_ms: env.LEASE_TTL_MS,
    eligible: env.FAILOVER === 'on',
  };
}
