import { resolve } from 'node:path';
import { z } from 'zod';

const EnvSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  DATA_DIR: z.string().min(1).default('./data'),
  GENESIS_FILE: z.string().min(1).optional(),
  BODY_LIMIT_BYTES: z.coerce.number().int().min(1024).max(16 * 1024 * 1024).default(64 * 1024),
  SNAPSHOT_EVERY_TICKS: z.coerce.number().int().min(1).default(5000),
  CHUNK_WORKERS: z.coerce.number().int().min(0).max(16).default(1),
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
}

/** Configuration comes from the environment only; a bad value stops start-up with its name. */
export function configFromEnv(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = EnvSchema.safeParse(env);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`).join('; ');
    throw new Error(`bad configuration: ${problems}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    data_dir: resolve(e.DATA_DIR),
    ...(e.GENESIS_FILE ? { genesis_file: resolve(e.GENESIS_FILE) } : {}),
    body_limit_bytes: e.BODY_LIMIT_BYTES,
    snapshot_every_ticks: e.SNAPSHOT_EVERY_TICKS,
    chunk_workers: e.CHUNK_WORKERS,
  };
}
