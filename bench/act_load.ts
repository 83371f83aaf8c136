import { fileURLToPath } from 'node:url';
import { generatorRun } from './child.js';

const here = (file: string) => fileURLToPath(new URL(file, import.meta.url));

/** How each act gets its nonce: GET /api/v1/nonce first, or the X-Next-Nonce of the previous answer. */
export type NonceMode = 'fetch' | 'handover';

export interface ActLoadResult {
  acts: number;
  acts_per_second: number;
  p50_ms: number;
  p99_ms: number;
  statuses: Record<string, number>;
  generator_cpu_us_per_act: number;
  /** CPU the loaded server spent per act, all its threads (Linux only). */
  server_cpu_us_per_act: number;
}

export interface ActLoadTarget {
  url: string;
  pid: number;
  agents_file: string;
  motion_id: string;
}

/** One load of signed acts from the generator process (bench/signed_load_client.ts) against one server. */
export async function actLoad(
  target: ActLoadTarget,
  mode: NonceMode,
  seconds: number,
  concurrency: number,
): Promise<ActLoadResult> {
  const args = [
    here('./signed_load_client.js'),
    target.url,
    target.agents_file,
    String(seconds),
    String(concurrency),
    target.motion_id,
    mode,
  ];
  const { stdout, server_cpu_ms } = await generatorRun(args, target.pid);
  const result = JSON.parse(stdout) as Omit<ActLoadResult, 'server_cpu_us_per_act'>;
  return { ...result, server_cpu_us_per_act: (server_cpu_ms * 1000) / result.acts };
}
