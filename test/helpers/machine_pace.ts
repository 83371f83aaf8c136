import { createHash } from 'node:crypto';

/*
 * Timing bounds in tests are set for a quiet machine. On a busy one (a laptop building
 * something else, CI beside other jobs) every process gets a share of a core, and a bound
 * that held on a quiet machine fails on timing alone. So a bound is stretched by how busy
 * the machine is now, measured rather than guessed: the wall time a fixed piece of CPU work
 * takes over the CPU time it was given. On an idle core the two are equal (1); sharing a
 * core with one other busy process, the work waits about as long as it runs (2).
 */

/** The most a bound is stretched: beyond it the machine is too busy for a timing claim to mean anything. */
const slowness_max = 6;

const sample = {
  entries: Array.from({ length: 200 }, (_, at) => ({
    seq: at,
    actor: `agent-${at}`,
    data: { x: at, text: 'héllo '.repeat(6) },
  })),
};

/** About 10 ms of JSON and hashing on a quiet core: long enough to be measured, short enough to run per bound. */
function work(): void {
  const hash = createHash('sha256');
  for (let round = 0; round < 20; round++) {
    const text = JSON.stringify(sample);
    hash.update(text);
    JSON.parse(text);
  }
  hash.digest();
}

/**
 * Wall time over CPU time for the same work, summed over a tenth of a second or so: a
 * scheduler hands out cores in slices of a few milliseconds, so one short run is either
 * lucky or not; the sum over many is the share of a core this process gets now. At least 1.
 */
export function machineSlowness(): number {
  work();
  const cpu_before = process.cpuUsage();
  const wall_before = performance.now();
  for (let run = 0; run < 10; run++) work();
  const wall_ms = performance.now() - wall_before;
  const { user, system } = process.cpuUsage(cpu_before);
  return Math.min(Math.max(wall_ms / Math.max((user + system) / 1000, 0.001), 1), slowness_max);
}

/**
 * A bound set for a quiet machine, stretched by how busy this one is now. `fixed_ms` is
 * the part no machine speeds or slows (a lease's ttl, a timer the service waits on).
 */
export function onThisMachine(quiet_bound_ms: number, fixed_ms = 0): number {
  const slowness = machineSlowness();
  const bound_ms = fixed_ms + (quiet_bound_ms - fixed_ms) * slowness;
  if (slowness > 1.2)
    console.log(
      `machine pace: ${slowness.toFixed(2)}x slower than quiet; bound ${quiet_bound_ms} ms -> ${Math.round(bound_ms)} ms`,
    );
  return bound_ms;
}
