import type { Routes } from '../routes.js';
import type { Context } from 'koa';
import { FAVICON_SVG, PAGE_END, watchersHtml, wayOnPage } from '../../render/layout.js';
import { SITE_CSS } from '../../render/site_css.js';
import { refusedValueSentence } from '../../render/query_words.js';
import { MAP_SCRIPT } from '../../render/map_script.js';
import { z } from 'zod';
import { routeArgsParser } from '../read_mount.js';
import { ValidationError } from '../refusal_error.js';
import { pageFrame, pageVisitor, type FrameDeps } from './frame.js';
import { StatePages } from './state_pages.js';
import { PAGE_CATALOGUE, type PageDefinition } from './page_catalogue.js';
import { type ReadContext } from '../../engine/index.js';

export interface PageDeps extends FrameDeps {
  /** What a view sees, taken afresh for each request (the same as the read catalogue's). */
  read: () => ReadContext;
  /** The pages kept rendered between state changes (shared with the fast path in front of Koa). */
  state_pages: StatePages;
}

const MARKDOWN_SUFFIX = '.md';

/**
 * The human pages, each from its catalogue entry: the view is computed once and handed to
 * the HTML or the Markdown renderer. Read-only; the observation notice first on each.
 */
export function mountPageRoutes(router: Routes, deps: PageDeps): void {
  router.get('/assets/site.css', (ctx) => {
    ctx.type = 'text/css; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = SITE_CSS;
  });
  for (const path of ['/favicon.svg', '/favicon.ico'])
    router.get(path, (ctx) => {
      ctx.type = 'image/svg+xml';
      ctx.set('Cache-Control', 'public, max-age=86400');
      ctx.body = FAVICON_SVG;
    });
  router.get('/assets/map.js', (ctx) => {
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=3600');
    ctx.body = MAP_SCRIPT;
  });
  for (const page of PAGE_CATALOGUE) mountPage(router, deps, page);
}

/**
 * A page asked for with a query value it cannot take (`/ledger?before=abc`) answers a page
 * saying which value and why, 422, in the form asked for: a person reads a page, not the
 * API's JSON. The link back, the first way on, drops the query.
 */
function badQuery(ctx: Context, deps: PageDeps, error: ValidationError, as_markdown: boolean): void {
  const lines = error.detail.map((item) => refusedValueSentence(item, ctx.query[String(item.loc.at(-1))]));
  ctx.status = 422;
  if (as_markdown) {
    ctx.type = 'text/plain; charset=utf-8';
    ctx.body = `# Bad query\n\n${lines.join('\n')}\n\nWithout the query: ${ctx.path}\n`;
    return;
  }
  ctx.body = wayOnPage(pageFrame(deps, ctx, 'Bad query'), lines, {
    href: ctx.path,
    label: `Without the query: ${ctx.path}`,
  });
}

/** A path value the page's schema refuses names nothing: the page's 404, not a 422. */
function pathRefused(error: unknown): boolean {
  return error instanceof ValidationError && error.detail.some((item) => item.loc[0] === 'path');
}

function mountPage(router: Routes, deps: PageDeps, page: PageDefinition): void {
  const argsOf = routeArgsParser(page.args ?? z.object({}), page.path);
  const notFound = (ctx: Context) => {
    ctx.status = 404;
    ctx.body = wayOnPage(pageFrame(deps, ctx, 'Not found'), [page.missing ?? 'There is no such page.']);
  };
  const answer = (ctx: Context, as_markdown: boolean, params: Record<string, string>) => {
    if (!as_markdown && StatePages.keeps(page)) {
      const before_watchers = deps.state_pages.beforeWatchers(page);
      if (before_watchers !== null) {
        ctx.body = before_watchers.html + watchersHtml(pageVisitor(deps, ctx).watchers) + PAGE_END;
        return;
      }
    }
    let args: Record<string, unknown>;
    try {
      args = argsOf({ params, query: ctx.query }) as Record<string, unknown>;
    } catch (error) {
      if (pathRefused(error)) return notFound(ctx);
      if (error instanceof ValidationError) return badQuery(ctx, deps, error, as_markdown);
      throw error;
    }
    const context = deps.read();
    const elsewhere = page.redirect?.(context, args) ?? null;
    if (elsewhere !== null) {
      ctx.redirect(as_markdown ? elsewhere + MARKDOWN_SUFFIX : elsewhere);
      ctx.status = 303;
      return;
    }
    const view = page.view(context, args);
    if (view === null) {
      notFound(ctx);
    } else if (as_markdown) {
      ctx.type = 'text/plain; charset=utf-8';
      ctx.body = page.markdown!(view, context.at_ms);
    } else {
      ctx.body = page.html(pageFrame(deps, ctx, page.heading?.(view) ?? page.title, context.at_ms), view);
    }
  };
  const param = /\{(\w+)\}$/.exec(page.path)?.[1];
  if (param === undefined) {
    router.get(page.path, (ctx) => answer(ctx, false, {}));
    if (page.markdown) router.get(page.path + MARKDOWN_SUFFIX, (ctx) => answer(ctx, true, {}));
    return;
  }
  // One route serves the page and its twin: find-my-way takes `/motions/M-0001-9c1e.md` as a parameter value.
  router.get(page.path.replace(`{${param}}`, `:${param}`), (ctx) => {
    const value = ctx.params[param]!;
    const as_markdown = page.markdown !== undefined && value.endsWith(MARKDOWN_SUFFIX);
    return answer(ctx, as_markdown, { [param]: as_markdown ? value.slice(0, -MARKDOWN_SUFFIX.length) : value });
  });
}
