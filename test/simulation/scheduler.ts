import type { ClusterClock } from '../../api/cluster/cluster_clock.js';

interface Event {
  at_ms: number;
  order: number;
  owner: string | undefined;
  run: () => void;
}

/**
 * Simulated time. Every timer, network delivery and fault of a simulation is an event
 * here, run in time order (ties in the order they were scheduled), one at a time, and
 * after each one the process's own queues (promises, setImmediate) are let run for a
 * fixed number of turns, with no real I/O anywhere: so a seed runs the same way every
 * time. An event has an owner (a node's process) or none (the network): a paused
 * owner's events wait, in order, until it resumes, as a SIGSTOPped process's would.
 */
export class Scheduler {
  now_ms = 0;
  events_run = 0;
  private readonly heap: Event[] = [];
  private order = 0;
  private readonly held = new Map<string, Event[]>();
  private readonly dead = new Set<string>();

  at(delay_ms: number, owner: string | undefined, run: () => void): void {
    const event = { at_ms: this.now_ms + Math.max(0, delay_ms), order: this.order++, owner, run };
    this.push(event);
  }

  /** Waits `ms` of simulated time, as `owner`. */
  sleep(ms: number, owner: string | undefined): Promise<void> {
    return new Promise((resolve) => this.at(ms, owner, resolve));
  }

  pause(owner: string): void {
    if (!this.held.has(owner)) this.held.set(owner, []);
  }

  resume(owner: string): void {
    const held = this.held.get(owner);
    this.held.delete(owner);
    for (const event of held ?? []) this.push({ ...event, at_ms: this.now_ms, order: this.order++ });
  }

  /** A process that died: its events are dropped, now and whenever they come due. */
  kill(owner: string): void {
    this.dead.add(owner);
    this.held.delete(owner);
  }

  isPaused(owner: string): boolean {
    return this.held.has(owner);
  }

  /**
   * A clock for one process: its monotonic time runs at `rate` of simulated time (clock
   * drift between machines), and its timers fire as its events.
   */
  clockFor(owner: string, rate: number): ClusterClock {
    const started_ms = this.now_ms;
    return {
      now_ms: () => started_ms + (this.now_ms - started_ms) * rate,
      sleep: (ms) => this.sleep(ms / rate, owner),
      every: (ms, tick) => {
        let stopped = false;
        const again = () => {
          if (stopped) return;
          tick();
          this.at(ms / rate, owner, again);
        };
        this.at(ms / rate, owner, again);
        return () => {
          stopped = true;
        };
      },
    };
  }

  /** Runs events until none is left before `until_ms`, calling `after_each` once each has settled. */
  async run(until_ms: number, after_each: () => void | Promise<void>): Promise<void> {
    while (this.heap.length > 0 && this.heap[0]!.at_ms <= until_ms) {
      const event = this.pop();
      this.now_ms = Math.max(this.now_ms, event.at_ms);
      if (event.owner !== undefined && this.dead.has(event.owner)) continue;
      if (event.owner !== undefined && this.held.has(event.owner)) {
        this.held.get(event.owner)!.push(event);
        continue;
      }
      event.run();
      this.events_run++;
      await settle();
      await after_each();
    }
    this.now_ms = Math.max(this.now_ms, until_ms);
  }

  private push(event: Event): void {
    const heap = this.heap;
    heap.push(event);
    let index = heap.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      if (!earlier(heap[index]!, heap[parent]!)) break;
      [heap[index], heap[parent]] = [heap[parent]!, heap[index]!];
      index = parent;
    }
  }

  private pop(): Event {
    const heap = this.heap;
    const top = heap[0]!;
    const last = heap.pop()!;
    if (heap.length > 0) {
      heap[0] = last;
      let index = 0;
      for (;;) {
        const left = 2 * index + 1;
        const right = left + 1;
        let least = index;
        if (left < heap.length && earlier(heap[left]!, heap[least]!)) least = left;
        if (right < heap.length && earlier(heap[right]!, heap[least]!)) least = right;
        if (least === index) break;
        [heap[index], heap[least]] = [heap[least]!, heap[index]!];
        index = least;
      }
    }
    return top;
  }
}

function earlier(a: Event, b: Event): boolean {
  return a.at_ms < b.at_ms || (a.at_ms === b.at_ms && a.order < b.order);
}

/** Lets the process's own queues run: promise chains and the engine's setImmediate ticks, a fixed number of turns. */
async function settle(): Promise<void> {
  for (let turn = 0; turn < SETTLE_TURNS; turn++) await new Promise<void>((resolve) => setImmediate(resolve));
}

const SETTLE_TURNS = 2;
