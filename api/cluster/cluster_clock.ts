/**
 * The time a cluster node lives by: the host's monotonic clock and timers in production,
 * the simulator's own clock in `npm run simulate` (test/simulation), which decides when
 * every timer fires. Cluster code reads time and waits only through this.
 */
export interface ClusterClock {
  /** Monotonic milliseconds: only differences mean anything. */
  now_ms(): number;
  sleep(ms: number): Promise<void>;
  /** Calls `tick` every `ms` until the returned function is called. */
  every(ms: number, tick: () => void): () => void;
}

export const hostClock: ClusterClock = {
  now_ms: () => performance.now(),
  // Not unref'd: a node waiting for NATS at start has nothing else keeping it alive, and must not exit (0) meanwhile.
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  every: (ms, tick) => {
    const timer = setInterval(tick, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

/** Waits before the next try of a call whose outcome is unknown: doubling from 100 ms, at most 2 s. */
export function backoffMs(attempt: number): number {
  return Math.min(2000, 100 * 2 ** Math.min(attempt, 5));
}
