import type { RouteDoc } from '../route_docs.js';
import { routePattern } from '../read_mount.js';
import { markdownTwin, PAGE_CATALOGUE, type PageDefinition } from './page_catalogue.js';

/**
 * The OpenAPI declarations of a catalogue page and its Markdown twin, from the page's
 * own declaration: its summary, its typed parameters, a 422 page when it reads a query, a
 * 404 page when a path value can name nothing, a 303 when it sends some requests elsewhere.
 */
function pageRouteDocs(page: PageDefinition): RouteDoc[] {
  const takes_path = page.path.includes('{');
  const takes_query =
    page.args !== undefined && Object.keys(page.args.shape).some((name) => !page.path.includes(`{${name}}`));
  const common = {
    method: 'GET' as const,
    summary: page.summary,
    ...(page.args ? { args: page.args } : {}),
  };
  // A bad query value answers a page saying which and why (api/pages/page_routes.ts), in the page's own form.
  const bad_query = (media_type: string) =>
    takes_query
      ? [{ status: 422, media_type, description: 'A query value the page cannot take: which one, and why' }]
      : [];
  // A page that sends some requests elsewhere (the ledger's search for a seq) answers 303 to the page that shows it.
  const redirected = page.redirect
    ? [
        {
          status: 303,
          media_type: 'text/html',
          description: 'The page that shows what was asked for (the ledger search sends a seq to its entry)',
          headers: {
            Location: {
              description: 'Where it is',
              required: true,
              schema: { type: 'string', format: 'uri-reference' },
            },
          },
        },
      ]
    : [];
  const not_found = (media_type: string) =>
    takes_path ? [{ status: 404, media_type, description: page.missing ?? 'Nothing by that path' }] : [];
  const html = {
    ...common,
    path: page.path,
    answers: [
      { status: 200, media_type: 'text/html', description: page.summary },
      ...redirected,
      ...not_found('text/html'),
      ...bad_query('text/html'),
    ],
  };
  const twin = markdownTwin(page);
  if (twin === undefined) return [html];
  const markdown = {
    ...common,
    path: twin,
    // One route serves a parameterised page and its twin (`/motions/:motion_id` answers `.../M-0001-9c1e.md`).
    ...(takes_path ? { mounted: routePattern(page.path) } : {}),
    answers: [
      { status: 200, media_type: 'text/plain', description: `${page.summary}, as Markdown (text/plain, UTF-8)` },
      ...redirected,
      ...not_found('text/html'),
      ...bad_query('text/plain'),
    ],
  };
  return [html, markdown];
}

/** Every catalogue page's declarations, for the OpenAPI document. */
export const PAGE_ROUTE_DOCS: readonly RouteDoc[] = PAGE_CATALOGUE.flatMap(pageRouteDocs);
