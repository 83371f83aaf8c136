import { mkdirSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { cpus, totalmem, type as osType, release } from 'node:os';
import { join } from 'node:path';
import { Bench } from 'tinybench';

/** The machine line every result carries: figures only mean something beside it. */
export function machineLine(): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown cpu';
  return `${cpu}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB, ${osType()} ${release()}, Node ${process.version}`;
}

export interface TaskSpec {
  name: string;
  /** How many operations one call of fn performs (a batch of appends counts its entries). */
  ops_per_call: number;
  fn: () => unknown;
  /** Untimed preparation before each call; may be async (a bench that asks the engine for challenges). */
  beforeEach?: () => void | Promise<void>;
}

/** Runs tasks side by side in one tinybench and returns operations per second for each. */
export async function opsPerSecond(tasks: TaskSpec[], time_ms = 1500): Promise<Record<string, number>> {
  const bench = new Bench({ time: time_ms, iterations: 5, warmup: true, warmupIterations: 2 });
  // BENCH_CPU=1: also the process's CPU time (all threads) per operation, which a shared machine disturbs less than the rate.
  const cpu_us = new Map<string, { us: number; ops: number }>();
  const counted = (task: TaskSpec) => async () => {
    const before = process.cpuUsage();
    await task.fn();
    const used = process.cpuUsage(before);
    const total = cpu_us.get(task.name) ?? { us: 0, ops: 0 };
    cpu_us.set(task.name, { us: total.us + used.user + used.system, ops: total.ops + task.ops_per_call });
  };
  for (const task of tasks)
    bench.add(
      task.name,
      (process.env.BENCH_CPU ? counted(task) : task.fn) as () => Promise<void>,
      task.beforeEach ? { beforeEach: task.beforeEach } : {},
    );
  await bench.run();
  if (process.env.BENCH_CPU)
    console.error(
      `CPU per operation: ${[...cpu_us].map(([name, { us, ops }]) => `${name} ${(us / ops).toFixed(2)} µs`).join(', ')}`,
    );
  const rates: Record<string, number> = {};
  for (const task of tasks) {
    const result = bench.getTask(task.name)?.result;
    if (!result || result.state !== 'completed')
      throw new Error(
        `bench task ${task.name} did not complete: ${result?.state} ${String((result as { error?: unknown } | undefined)?.error ?? '')}`,
      );
    rates[task.name] = (task.ops_per_call * 1000) / result.period;
  }
  const profile_dir = process.env.BENCH_PROFILE;
  if (profile_dir) for (const task of tasks) await profileTask(task, time_ms, profile_dir);
  return rates;
}

let profiled = 0;

/**
 * BENCH_PROFILE=DIR: after the measured run, each task runs again for as long under V8's
 * profiler, and its profile is written to DIR (read it with bench/profile_summary). The
 * setup of the bench (registering members, growing the world) is left out of it, which a
 * whole-process --cpu-prof cannot do.
 */
async function profileTask(task: TaskSpec, time_ms: number, dir: string): Promise<void> {
  mkdirSync(dir, { recursive: true });
  const session = new Session();
  session.connect();
  // BENCH_PROFILE_HEAP=1: where the task allocates (sampled, counting what the collector has already freed) instead of where it spends time.
  const heap = Boolean(process.env.BENCH_PROFILE_HEAP);
  if (heap)
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  else {
    await session.post('Profiler.enable');
    await session.post('Profiler.start');
  }
  // The timed calls' spans on the profiler's clock (both read CLOCK_MONOTONIC), so that the
  // summary can leave out the untimed preparation, which may be most of the samples.
  const timed_windows_us: [number, number][] = [];
  const now_us = () => Number(process.hrtime.bigint() / 1000n);
  const until = performance.now() + time_ms;
  while (performance.now() < until) {
    await task.beforeEach?.();
    const started_us = now_us();
    await task.fn();
    timed_windows_us.push([started_us, now_us()]);
  }
  const { profile } = heap ? await session.post('HeapProfiler.stopSampling') : await session.post('Profiler.stop');
  session.disconnect();
  const file = join(dir, `${String(++profiled).padStart(2, '0')}_${task.name}.${heap ? 'heapprofile' : 'cpuprofile'}`);
  writeFileSync(file, JSON.stringify(heap ? profile : { ...profile, timed_windows_us }));
  console.error(`profile of ${task.name}: ${file}`);
}

/** The value at a fraction (0.5, 0.99) of values sorted ascending; 0 for none. */
export function percentile(sorted: readonly number[], fraction: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(fraction * sorted.length))] ?? 0;
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}
