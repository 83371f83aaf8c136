import { isIP } from 'node:net';
import { resolve } from 'node:path';
import { z } from 'zod';
import { settingProblem } from './setting_problem.js';
import type { PaymentsConfig } from './payments/processor.js';
import type { RegistrationLimits } from './registration_limiter.js';
import { ClusterEnvSchema, clusterConfigOf, type ClusterConfig } from './cluster/cluster_config.js';
import { EVENT_STREAM_LIMITS, type EventStreamLimits } from './events/event_limits.js';
import { CONNECTION_LIMITS, type ConnectionLimits } from './connection_limit.js';
import { READ_BYTES_PER_SECOND_DEFAULT, READ_CPU_SHARE_DEFAULT, readWeightsFor } from './read_cost.js';
import type { ReadLimits } from './read_limiter.js';
import type { McpLimits } from './mcp_endpoint.js';

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z
    .string()
    .min(1)
    .refine(isListenableHost, {
      error: (issue) =>
        `"${String(issue.input)}" is neither an IP address (127.0.0.1, 0.0.0.0, ::1, :: ; IPv6 without brackets) nor a host name`,
    })
    .default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  GENESIS_FILE: z.string().min(1).optional(),
  BODY_LIMIT_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(16 * 1024 * 1024)
    .default(64 * 1024),
  SNAPSHOT_EVERY_TICKS: z.coerce.number().int().min(1).default(5000),
  CHUNK_WORKERS: z.coerce.number().int().min(0).max(16).default(1),
  QUEUE_DEPTH_MAX: z.coerce.number().int().min(1).max(1_000_000).default(10_000),
  STRIPE_SECRET_KEY: z
    .string()
    .regex(/^(sk|rk)_(test|live)_[A-Za-z0-9_]+$/, 'must be a Stripe secret key (sk_test_... or sk_live_...)')
    .optional(),
  STRIPE_WEBHOOK_SECRET: z
    .string()
    .regex(/^whsec_[A-Za-z0-9_+/=]+$/, 'must be a Stripe webhook signing secret (whsec_...)')
    .optional(),
  STRIPE_API_BASE: z.url().optional(),
  PUBLIC_URL: z.url().optional(),
  WITNESSES: z.string().optional(),
  LOG_ORIGIN: z
    .string()
    .regex(/^[^\s+]{1,200}$/, 'must be a non-empty name without spaces or "+" (e.g. example.org/tessera)')
    .optional(),
  COOKIE_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  READS_PER_SECOND: z.coerce.number().int().min(1).max(1_000_000).default(100),
  READ_BURST: z.coerce.number().int().min(1).max(1_000_000).default(400),
  READ_CPU_SHARE: z.coerce.number().min(0.01).max(64).default(READ_CPU_SHARE_DEFAULT),
  READ_BYTES_PER_SECOND: z.coerce
    .number()
    .int()
    .min(64 * 1024)
    .max(1024 * 1024 * 1024)
    .default(READ_BYTES_PER_SECOND_DEFAULT),
  REGISTRATIONS_PER_HOUR: z.coerce.number().int().min(1).max(1_000_000).default(6),
  REGISTRATION_BURST: z.coerce.number().int().min(1).max(1_000_000).default(10),
  NONCES_PER_SECOND: z.coerce.number().int().min(1).max(1_000_000).default(20),
  NONCE_BURST: z.coerce.number().int().min(1).max(1_000_000).default(100),
  CONNECTIONS_PER_ADDRESS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(CONNECTION_LIMITS.connections_per_address_max),
  EVENT_STREAMS_MAX: z.coerce.number().int().min(1).max(1_000_000).default(EVENT_STREAM_LIMITS.subscribers_max),
  EVENT_STREAMS_PER_ADDRESS: z.coerce
    .number()
    .int()
    .min(1)
    .max(1_000_000)
    .default(EVENT_STREAM_LIMITS.streams_per_address_max),
  BACKUP_EVERY_SECONDS: z.coerce
    .number()
    .int()
    .min(0)
    .max(7 * 86_400)
    .default(3600),
  BACKUPS_KEPT: z.coerce.number().int().min(1).max(1000).default(24),
  DISPATCH_DAILY_AT_UTC: z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a time of day HH:MM, UTC, from 00:00 to 23:59 (e.g. 09:00)')
    .optional(),
  ...ClusterEnvSchema,
});

export interface Config {
  port: number;
  host: string;
  data_dir: string;
  genesis_file?: string;
  body_limit_bytes: number;
  snapshot_every_ticks: number;
  /** Worker threads that re-encode dirty chunks; 0 builds every chunk inline. */
  chunk_workers: number;
  /** Members' acts waiting for the engine at most; absent, the engine's own default. */
  queue_depth_max?: number;
  /** Per client address: sustained public reads a second, the burst allowed, and what one read buys (read_cost.ts). */
  read_limits: ReadLimits;
  /** Connections per client address and in all, and the request timeouts (api/connection_limit.ts); absent, its defaults. */
  connection_limits?: Partial<ConnectionLimits>;
  /** What one POST /mcp may ask for (api/mcp_endpoint.ts); absent, its defaults. */
  mcp_limits?: Readonly<McpLimits>;
  /** Per client address: registrations an hour, and the burst allowed; what keeps one address from flooding the electorate. */
  registration_limits: RegistrationLimits;
  /** Per client address: sustained GET /api/v1/nonce a second, and the burst allowed. */
  nonce_limits: { nonces_per_second: number; burst_nonces: number };
  /** A backup and a restore drill every this many seconds (0: only on demand), keeping this many backups. */
  backup_every_seconds: number;
  backups_kept: number;
  /**
   * Minutes after UTC midnight at which the service publishes the Dispatch each day, signed
   * with the Founder key in DATA_DIR (api/operations/daily_dispatch.ts); absent: only by hand.
   */
  dispatch_daily_at_minutes?: number;
  /** This service's public address, for links it hands out. */
  public_url: string;
  /** The transparency log's origin, fixed by the log key on the first start; absent: derived from public_url. */
  log_origin?: string;
  /** The tlog witnesses each new checkpoint goes to (none: checkpoints are served as the log signed them). */
  witnesses: { url: string; vkey: string }[];
  /** The event stream's bounds (api/events/event_limits.ts); absent, its defaults. The environment sets the two counts. */
  event_stream_limits?: Partial<EventStreamLimits>;
  /** Signs cookies; generated into the data folder when not given. */
  cookie_secret?: string;
  /** Absent: payments off (the embedded default). */
  payments?: PaymentsConfig;
  /** Absent: the embedded default, one node on LMDB alone. Present: a node of a society replicated over NATS JetStream. */
  cluster?: ClusterConfig;
}

/**
 * A setting start-up cannot use, named in the message (never with a secret's value). It is
 * raised before anything is written to DATA_DIR, so fixing the setting is all there is to do.
 */
export class ConfigurationError extends Error {
  override name = 'ConfigurationError';
  constructor(problem: string) {
    super(`bad configuration: ${problem}`);
  }
}

/**
 * What the server can listen on: an IP address, or a name the resolver may know. A dotted
 * run of digits that is no IPv4 address (999.1.1.1) is a typo, not a host name.
 */
function isListenableHost(host: string): boolean {
  if (isIP(host) !== 0) return true;
  if (/^[\d.]+$/.test(host)) return false;
  return /^(?=.{1,253}$)[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*\.?$/.test(
    host,
  );
}

/** The address a URL spells for a host: an IPv6 address goes in brackets. */
function urlHost(host: string): string {
  return isIP(host) === 6 ? `[${host}]` : host;
}

/** Configuration comes from the environment only; a bad value stops start-up with its name. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => settingProblem(issue, env)).join('; ');
    throw new ConfigurationError(problems);
  }
  const e = parsed.data;
  if (Boolean(e.STRIPE_SECRET_KEY) !== Boolean(e.STRIPE_WEBHOOK_SECRET))
    throw new ConfigurationError('set both STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET, or neither (payments off)');
  const public_url = e.PUBLIC_URL ?? `http://${urlHost(e.HOST)}:${e.PORT}`;
  const cluster = clusterSettings(e);
  return {
    port: e.PORT,
    host: e.HOST,
    data_dir: resolve(e.DATA_DIR),
    ...(e.GENESIS_FILE ? { genesis_file: resolve(e.GENESIS_FILE) } : {}),
    body_limit_bytes: e.BODY_LIMIT_BYTES,
    snapshot_every_ticks: e.SNAPSHOT_EVERY_TICKS,
    chunk_workers: e.CHUNK_WORKERS,
    queue_depth_max: e.QUEUE_DEPTH_MAX,
    public_url,
    ...(e.LOG_ORIGIN ? { log_origin: e.LOG_ORIGIN } : {}),
    witnesses: parseWitnesses(e.WITNESSES ?? ''),
    backup_every_seconds: e.BACKUP_EVERY_SECONDS,
    backups_kept: e.BACKUPS_KEPT,
    ...(e.DISPATCH_DAILY_AT_UTC ? { dispatch_daily_at_minutes: minutesOfDay(e.DISPATCH_DAILY_AT_UTC) } : {}),
    read_limits: {
      reads_per_second: e.READS_PER_SECOND,
      burst_reads: e.READ_BURST,
      ...readWeightsFor(e.READS_PER_SECOND, e.READ_CPU_SHARE, e.READ_BYTES_PER_SECOND),
    },
    registration_limits: {
      registrations_per_hour: e.REGISTRATIONS_PER_HOUR,
      burst_registrations: e.REGISTRATION_BURST,
    },
    nonce_limits: { nonces_per_second: e.NONCES_PER_SECOND, burst_nonces: e.NONCE_BURST },
    connection_limits: { connections_per_address_max: e.CONNECTIONS_PER_ADDRESS },
    event_stream_limits: {
      subscribers_max: e.EVENT_STREAMS_MAX,
      streams_per_address_max: e.EVENT_STREAMS_PER_ADDRESS,
    },
    ...(e.COOKIE_SECRET ? { cookie_secret: e.COOKIE_SECRET } : {}),
    ...(cluster ? { cluster } : {}),
    ...(e.STRIPE_SECRET_KEY && e.STRIPE_WEBHOOK_SECRET
      ? {
          payments: {
            secret_key: e.STRIPE_SECRET_KEY,
            webhook_secret: e.STRIPE_WEBHOOK_SECRET,
            public_url,
            ...(e.STRIPE_API_BASE ? { api_base: e.STRIPE_API_BASE } : {}),
          },
        }
      : {}),
  };
}

/** "HH:MM" (checked by its pattern) as minutes after midnight. */
function minutesOfDay(time: string): number {
  const [hours, minutes] = time.split(':').map(Number);
  return hours! * 60 + minutes!;
}

/** The replicated log's settings, refused as every other setting is. */
function clusterSettings(e: z.output<typeof EnvSchema>): ClusterConfig | undefined {
  try {
    return clusterConfigOf(e, e.PORT);
  } catch (error) {
    throw new ConfigurationError(String((error as Error).message).replace(/^bad configuration: /, ''));
  }
}

/**
 * WITNESSES: comma-separated "<url> <vkey>" pairs, the witness's add-checkpoint prefix
 * and its cosignature/v1 verifier key (what `tessera-agent witness` prints at start).
 */
function parseWitnesses(text: string): { url: string; vkey: string }[] {
  return text
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const [url, vkey, ...extra] = entry.split(/\s+/);
      if (!url || !vkey || extra.length > 0 || !URL.canParse(url))
        throw new ConfigurationError(`WITNESSES entry "${entry}" is not "<url> <vkey>"`);
      return { url, vkey };
    });
}
