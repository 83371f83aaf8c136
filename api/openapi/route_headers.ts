import type { RouteAnswer, RouteDoc } from '../route_docs.js';
import { IMMUTABLE } from '../read_mount.js';
import { LOG_PREFIX } from '../log/log_routes.js';
import { EVENTS_PATH } from '../events/event_routes.js';
import { WORLD_CHANGES_PATH } from '../events/world_changes.js';
import { cacheControlHeaders, VISITOR_COOKIE_HEADERS } from './headers.js';

type Headers = NonNullable<RouteAnswer['headers']>;

function withAnswerHeaders(doc: RouteDoc, applies: (answer: RouteAnswer) => boolean, headers: Headers): RouteDoc {
  return {
    ...doc,
    answers: doc.answers.map((answer) =>
      applies(answer) ? { ...answer, headers: { ...headers, ...answer.headers } } : answer,
    ),
  };
}

/** A catalogue page's HTML (its 404 and 422 pages too) is framed for its visitor (api/pages/frame.ts), cookie and all. */
export function framedPage(doc: RouteDoc): RouteDoc {
  return withAnswerHeaders(doc, (answer) => answer.media_type === 'text/html', VISITOR_COOKIE_HEADERS);
}

/**
 * The Cache-Control of routes declared beside their code (api/log/log_route_docs.ts,
 * api/events/event_route_docs.ts), whose declarations do not state it.
 */
const PROOF = cacheControlHeaders(`A proof for given sizes never changes: ${IMMUTABLE}`);
const STREAM = cacheControlHeaders('no-store: a live stream');
const CACHE_CONTROL_OF: Record<string, Headers> = {
  [`GET ${LOG_PREFIX}/proof/inclusion`]: PROOF,
  [`GET ${LOG_PREFIX}/proof/consistency`]: PROOF,
  [`GET ${EVENTS_PATH}`]: STREAM,
  [`GET ${WORLD_CHANGES_PATH}`]: STREAM,
};

/** A route's declaration with the Cache-Control its successes carry, where it has one not declared with it. */
export function withCacheControl(doc: RouteDoc): RouteDoc {
  const headers = CACHE_CONTROL_OF[`${doc.method} ${doc.path}`];
  return headers ? withAnswerHeaders(doc, (answer) => answer.status === 200, headers) : doc;
}
