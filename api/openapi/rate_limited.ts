import { isLimitedRead } from '../read_limiter.js';
import type { JsonSchema } from './json_schema.js';
import { NOT_REDIRECT, RATE_LIMIT_HEADERS, withHeaders } from './headers.js';

/** Routes with a limit of their own, apart from the read limiter's (api/read_routes.ts nonceLimit). */
const OWN_LIMIT = new Set(['GET /api/v1/nonce']);

/** Whether a route's answers pass through an address limit: the read limiter's, or one of its own. */
export function isRateLimitedRoute(method: string, path: string): boolean {
  return isLimitedRead(method, path) || OWN_LIMIT.has(`${method} ${path}`);
}

/**
 * A limited operation's responses: every answer says where the client stands under the
 * limit, refusals and 304s included (api/address_limit.ts checkRequest); a read replica's
 * 307 is answered before any limit counts.
 */
export function limitedResponses(limited: boolean, responses: Record<string, JsonSchema>): Record<string, JsonSchema> {
  return limited ? withHeaders(responses, RATE_LIMIT_HEADERS, NOT_REDIRECT) : responses;
}
