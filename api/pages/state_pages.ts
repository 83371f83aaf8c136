import { PAGE_END, type PageFrame } from '../../render/layout.js';
import type { ReadContext, SocietyState } from '../../engine/index.js';
import { type FrameDeps, railOf } from './frame.js';
import { NAV_LINKS, type PageDefinition } from './page_catalogue.js';

export interface StatePagesDeps extends FrameDeps {
  /** What a view sees, taken afresh for each request (the page routes' own). */
  read: () => ReadContext;
}

interface Kept {
  /** What the page was rendered from: the state object (replaced when the engine reloads), its tick, the ledger head. */
  state: Readonly<SocietyState>;
  tick: number;
  head_seq: number;
  head_hash: string;
  before_watchers: KeptPage;
}

/** A page before its watchers line, as text and (for the answers written without Koa) as its UTF-8 bytes. */
export interface KeptPage {
  html: string;
  bytes: Buffer;
}

/**
 * Pages that are the same for every visitor until the society changes (the catalogue's
 * `keep_while_state`, the front page), kept rendered up to their watchers line. The state
 * changes only in a tick that logs something, and every such tick moves `state.tick`; the
 * ledger head moves when that tick commits: a kept page is used while both stand where
 * they stood when it was rendered. What is left per request is the visitor's own: its
 * cookie and the watchers line (render/layout.ts `page` is the two parts joined).
 */
export class StatePages {
  private readonly kept = new Map<PageDefinition, Kept>();

  constructor(private readonly deps: StatePagesDeps) {}

  static keeps(page: PageDefinition): boolean {
    return page.keep_while_state !== undefined && page.args === undefined;
  }

  /**
   * The page's HTML before its watchers line, as the page route renders it now; null when
   * its view finds nothing (the route answers that itself).
   */
  beforeWatchers(page: PageDefinition): KeptPage | null {
    const state = this.deps.engine.state;
    const head = this.deps.store.ledgerHead();
    const kept = this.kept.get(page);
    if (
      kept &&
      kept.state === state &&
      kept.tick === state.tick &&
      kept.head_seq === head.seq &&
      kept.head_hash === head.hash
    )
      return kept.before_watchers;
    const context = this.deps.read();
    const view = page.view(context, {});
    if (view === null) return null;
    const frame: PageFrame = {
      title: page.heading?.(view) ?? page.title,
      nav: NAV_LINKS,
      now_ms: context.at_ms,
      rail: railOf(this.deps.engine, this.deps.store),
      site_url: this.deps.public_url,
    };
    const html = page.html(frame, view);
    // A page without a watchers line ends with PAGE_END (render/layout.ts page); anything else is a bug.
    if (!html.endsWith(PAGE_END)) throw new Error(`page ${page.path} does not end as render/layout.ts page does`);
    const before = html.slice(0, -PAGE_END.length);
    const before_watchers = { html: before, bytes: Buffer.from(before) };
    if (page.keep_while_state!(view))
      this.kept.set(page, { state, tick: state.tick, head_seq: head.seq, head_hash: head.hash, before_watchers });
    else this.kept.delete(page);
    return before_watchers;
  }
}
