import type { Context } from 'koa';
import type { PageFrame, Rail } from '../../render/layout.js';
import { returningVisitorIdOf, visitorIdOf } from '../observer/observer_routes.js';
import type { Watchers } from '../observer/watchers.js';
import { NAV_LINKS } from './page_catalogue.js';
import { ledgerReaderOf } from '../read_context.js';
import { type Engine, type LmdbStore, ownValue, standingNumbers } from '../../engine/index.js';

export interface FrameDeps {
  engine: Engine;
  store: LmdbStore;
  watchers: Watchers;
  /** The society's public URL: what a page's head links absolutely (its preview image). */
  public_url: string;
}

/** The rail's four numbers: the society_standing read's view (GET /api/v1/standing). */
export function railOf(engine: Engine, store: LmdbStore): Rail {
  return standingNumbers({ state: engine.state, ledger: ledgerReaderOf(store) });
}

/**
 * Everything a human page needs around its content: the rail's four numbers, the
 * visitor's anonymous id (noted as watching) and who else is watching.
 */
export function pageFrame(
  deps: FrameDeps,
  ctx: Context,
  title: string,
  now_ms: number = Date.now(),
): PageFrame & { visitor_id: string } {
  const { visitor_id, watchers } = pageVisitor(deps, ctx);
  return {
    title,
    nav: NAV_LINKS,
    now_ms,
    visitor_id,
    rail: railOf(deps.engine, deps.store),
    watchers,
    site_url: deps.public_url,
  };
}

/**
 * The part of a page's frame that is the visitor's: its anonymous id (a cookie set for a
 * new visitor, a returning one noted as watching) and the watchers line's ids. Sets the
 * answer's type to HTML.
 */
export function pageVisitor(deps: FrameDeps, ctx: Context): { visitor_id: string; watchers: string[] } {
  // Counted as watching only once its cookie comes back: a client that keeps no cookies
  // (curl, a crawler) would otherwise be a new watcher on every request.
  const returning = returningVisitorIdOf(ctx);
  const visitor_id = returning ?? visitorIdOf(ctx);
  if (returning) deps.watchers.saw(visitor_id);
  ctx.type = 'text/html; charset=utf-8';
  return { visitor_id, watchers: watchersShownTo(deps, visitor_id) };
}

/** The ids on the watchers line of a page shown to this visitor (the unwatched left out). */
export function watchersShownTo(deps: Pick<FrameDeps, 'engine' | 'watchers'>, visitor_id: string): string[] {
  const observers = deps.engine.state.payments.observers;
  return deps.watchers.watching((id) => ownValue(observers, id) !== undefined, visitor_id);
}

/** The frame of a page shown to a visitor not counted as watching (a redeemed grant link): title and nav only. */
export function bareFrame(title: string): PageFrame {
  return { title, nav: NAV_LINKS, now_ms: Date.now() };
}
