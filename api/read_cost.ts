import type { IncomingMessage } from 'node:http';
import type { Context } from 'koa';

/**
 * What one read of the allowance buys. A read costs one, or more when it took more of the
 * server: as many reads as started `cpu_ms_per_read` of CPU, or as started
 * `bytes_per_read` of answer, whichever is more. A client at the allowed rate
 * (reads_per_second) can so take at most reads_per_second x cpu_ms_per_read of CPU a
 * second, whatever it asks for: the bound holds by construction, not by a table of
 * costs kept up to date by hand.
 */
export interface ReadWeights {
  cpu_ms_per_read: number;
  bytes_per_read: number;
}

/**
 * The share of one core a client's reads may take at the allowed rate, by default. A fifth,
 * so that with what a request costs before it is measured (node:http parsing it, writing
 * the answer: about 0.3 ms, 0.03 of a core at 100 reads a second) one client stays under
 * a quarter of a core.
 */
export const READ_CPU_SHARE_DEFAULT = 0.2;
/** The answer bytes a second a client reading at the allowed rate may take, by default. */
export const READ_BYTES_PER_SECOND_DEFAULT = 100 * 64 * 1024;

/** The weights that hold a client at `reads_per_second` to a CPU share and a byte rate. */
export function readWeightsFor(reads_per_second: number, cpu_share: number, bytes_per_second: number): ReadWeights {
  return {
    cpu_ms_per_read: (cpu_share * 1000) / reads_per_second,
    bytes_per_read: Math.max(1024, Math.floor(bytes_per_second / reads_per_second)),
  };
}

/** The weights a read limit states, or the defaults for its rate. */
export function readWeightsOf(limits: Partial<ReadWeights> & { reads_per_second: number }): ReadWeights {
  const defaults = readWeightsFor(limits.reads_per_second, READ_CPU_SHARE_DEFAULT, READ_BYTES_PER_SECOND_DEFAULT);
  return {
    cpu_ms_per_read: limits.cpu_ms_per_read ?? defaults.cpu_ms_per_read,
    bytes_per_read: limits.bytes_per_read ?? defaults.bytes_per_read,
  };
}

/** What a read cost, in reads: at least one. */
export function readsCost(weights: ReadWeights, cpu_ms: number, bytes: number): number {
  return Math.max(1, Math.ceil(cpu_ms / weights.cpu_ms_per_read), Math.ceil(bytes / weights.bytes_per_read));
}

let measures_begun = 0;

/**
 * Measures what one request costs the server. process.cpuUsage is the whole process's,
 * so the CPU it reports is trusted only when no other measure began while the request
 * ran: a synchronous read (most of them) runs alone on the event loop and is measured
 * whole. A read that waited while others ran (a chunk built by a worker, say) is charged
 * the time it took instead, which others' work can lengthen but nothing can shorten, so
 * no client escapes its charge by making its reads overlap.
 */
export function beginCpuMeasure(): () => number {
  const id = ++measures_begun;
  const started = process.cpuUsage();
  const started_ms = performance.now();
  return () => {
    if (measures_begun !== id) return performance.now() - started_ms;
    const { user, system } = process.cpuUsage(started);
    return (user + system) / 1000;
  };
}

const request_measures = new WeakMap<IncomingMessage, () => number>();

/** Begins measuring a request as it enters the app, so Koa's own work on it is counted too. */
export function beginRequestMeasure(req: IncomingMessage): void {
  request_measures.set(req, beginCpuMeasure());
}

/** The measure begun for this request as it entered the app (or one begun now). */
export function requestMeasure(req: IncomingMessage): () => number {
  return request_measures.get(req) ?? beginCpuMeasure();
}

/**
 * The answer's length in bytes, as it will be sent. A JSON answer is serialized here, as
 * Koa would (its Content-Type is already set), so that its cost is measured with the read's.
 */
export function answerBytes(ctx: Context): number {
  const body: unknown = ctx.body;
  if (body === null || body === undefined) return 0;
  if (typeof body === 'string') return Buffer.byteLength(body);
  if (Buffer.isBuffer(body) || body instanceof Uint8Array) return body.byteLength;
  if (typeof (body as { pipe?: unknown }).pipe === 'function') return 0; // a stream bounds itself (event streams)
  const json = JSON.stringify(body);
  ctx.body = json;
  return Buffer.byteLength(json);
}
