export const watcher_window_ms = 15 * 60_000;
const watchers_shown_max = 50;
const watchers_tracked_max = 2_000;

/** The display is recomputed at most this often: a busy page must not rescan every visitor per request. */
const display_refresh_ms = 1_000;

/** Who is watching: visitor ids seen on a page in the last 15 minutes, held in memory only. */
export class Watchers {
  private readonly seen = new Map<string, number>();
  private display: { at_ms: number; ids: string[] } | undefined;

  constructor(private readonly clock: () => number) {}

  saw(visitor_id: string): void {
    this.seen.delete(visitor_id);
    this.seen.set(visitor_id, this.clock());
    while (this.seen.size > watchers_tracked_max) this.seen.delete(this.seen.keys().next().value!);
  }

  /**
   * The visitors watching now, newest first, without the unwatched; the viewer (if
   * watched) first. The list of others is rebuilt at most once a second, so a busy page
   * does the filtering once, not per request.
   */
  watching(is_unwatched: (visitor_id: string) => boolean, viewer?: string): string[] {
    const now = this.clock();
    if (!this.display || now - this.display.at_ms >= display_refresh_ms) {
      const since = now - watcher_window_ms;
      const ids: string[] = [];
      for (const [id, at] of [...this.seen.entries()].reverse()) {
        if (at < since || is_unwatched(id)) continue;
        ids.push(id);
        if (ids.length > watchers_shown_max) break;
      }
      this.display = { at_ms: now, ids };
    }
    // At most 51 ids: checked again per request, so a visitor who just paid leaves the display at once.
    const others = this.display.ids.filter((id) => id !== viewer && !is_unwatched(id));
    const shown = viewer && !is_unwatched(viewer) ? [viewer, ...others] : others;
    return shown.slice(0, watchers_shown_max);
  }
}
