import type { ReplicatedTick } from '../../engine/index.js';
import { decodeTick, encodeTick, StaleWriterError, type LogFollower, type TickLog } from './tick_log.js';

/**
 * The tick log in one process, with the JetStream log's rules (append only after the
 * tick before it; the same writer's repeat is a success, anyone else's a refusal),
 * shared by several nodes of a test. Entries are kept as encoded text, so a tick a
 * node reads is never the object another node wrote.
 */
export class MemoryTickLog implements TickLog {
  private readonly entries: { text: string; term: string }[] = [];
  private readonly waiting = new Set<() => void>();

  async append(tick: ReplicatedTick, term: string): Promise<void> {
    const number = tick.record.tick;
    const existing = this.entries[number - 1];
    if (existing && existing.term === term && existing.text === encodeTick(tick)) return;
    if (this.entries.length !== number - 1) throw new StaleWriterError(number, this.entries.length);
    this.entries.push({ text: encodeTick(tick), term });
    for (const wake of [...this.waiting]) wake();
  }

  async lastTick(): Promise<number> {
    return this.entries.length;
  }

  async read(tick: number): Promise<ReplicatedTick | undefined> {
    const entry = this.entries[tick - 1];
    return entry ? decodeTick(entry.text, tick) : undefined;
  }

  follow(
    after: number,
    apply: (tick: ReplicatedTick) => Promise<void>,
    on_error: (error: unknown) => void,
  ): LogFollower {
    let stopped = false;
    let wake: (() => void) | undefined;
    const run = async () => {
      let next = after + 1;
      while (!stopped) {
        const entry = this.entries[next - 1];
        if (!entry) {
          await new Promise<void>((resolve) => {
            wake = () => {
              this.waiting.delete(wake!);
              resolve();
            };
            this.waiting.add(wake);
          });
          continue;
        }
        await apply(decodeTick(entry.text, next));
        next++;
      }
    };
    const running = run().catch((error) => {
      stopped = true;
      on_error(error);
    });
    return {
      stop: async () => {
        stopped = true;
        wake?.();
        await running;
      },
    };
  }

  async close(): Promise<void> {}
}
