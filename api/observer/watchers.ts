import { randomBytes } from 'node:crypto';

export const watcher_window_ms = 15 * 60_000;
const watchers_shown_max = 50;

/** Who is watching: visitor ids seen on a page in the last 15 minutes, held in memory only. */
export class Watchers {
  private readonly seen = new Map<string, number>();

  constructor(private readonly clock: () => number) {}

  static newVisitorId(): string {
    return `v_${randomBytes(8).toString('hex')}`;
  }

  saw(visitor_id: string): void {
    this.seen.delete(visitor_id);
    this.seen.set(visitor_id, this.clock());
    while (this.seen.size > 10_000) this.seen.delete(this.seen.keys().next().value!);
  }

  /** The visitors watching now, newest first, without the unwatched. */
  watching(is_unwatched: (visitor_id: string) => boolean): string[] {
    const since = this.clock() - watcher_window_ms;
    return [...this.seen.entries()]
      .filter(([id, at]) => at >= since && !is_unwatched(id))
      .map(([id]) => id)
      .reverse()
      .slice(0, watchers_shown_max);
  }
}
