import type { JsonSchema } from './json_schema.js';

/** A Header Object (or a reference to one under components.headers), by header name. */
export type HeaderSet = Record<string, JsonSchema>;

/** The headers several operations' answers carry, each declared once under components.headers. */
export const HEADER_COMPONENTS = {
  NextNonce: {
    description: 'A fresh nonce for the same agent: sign the next request with it instead of fetching one',
    schema: { type: 'string' },
  },
  NextNonceExpiresAt: { description: 'When that nonce expires', schema: { type: 'string', format: 'date-time' } },
  RetryAfter: { description: 'Seconds to wait before trying again', schema: { type: 'integer', minimum: 1 } },
  RateLimitLimit: {
    description: "The size of the client's allowance under this answer's limit (a burst of reads, or a rule's count)",
    schema: { type: 'integer', minimum: 1 },
  },
  RateLimitRemaining: { description: 'What is left of it after this request', schema: { type: 'integer', minimum: 0 } },
  RateLimitReset: {
    description: 'Seconds until the allowance is whole again (0 when it is)',
    schema: { type: 'integer', minimum: 0 },
  },
  IdempotentReplayed: {
    description:
      'true on the answer to the same signed request sent again (same agent, nonce, method, path, body and signature) ' +
      'within its nonce lifetime: the first answer given again, nothing applied twice (docs/protocol.md)',
    schema: { type: 'string', enum: ['true'] },
  },
} satisfies Record<string, JsonSchema>;

type ComponentName = keyof typeof HEADER_COMPONENTS;

function referenced(names: Record<string, ComponentName>): HeaderSet {
  return Object.fromEntries(
    Object.entries(names).map(([header, component]) => [header, { $ref: `#/components/headers/${component}` }]),
  );
}

/**
 * The same headers declared sent on every such answer. A reference can carry no
 * `required` of its own (OpenAPI 3.1), so each is its component's declaration, inline.
 */
export function alwaysSent(headers: HeaderSet): HeaderSet {
  return Object.fromEntries(
    Object.entries(headers).map(([header, declaration]) => {
      const ref = declaration.$ref as string | undefined;
      const component = ref ? HEADER_COMPONENTS[ref.replace('#/components/headers/', '') as ComponentName] : undefined;
      return [header, { ...(component ?? declaration), required: true }];
    }),
  );
}

/** What every answer of a limited route says of the client's standing under its limit (docs/protocol.md). */
export const RATE_LIMIT_HEADERS = referenced({
  'RateLimit-Limit': 'RateLimitLimit',
  'RateLimit-Remaining': 'RateLimitRemaining',
  'RateLimit-Reset': 'RateLimitReset',
});

/** Answers to a signed request whose signature held carry the agent's next nonce. */
export const NEXT_NONCE_HEADERS = referenced({
  'X-Next-Nonce': 'NextNonce',
  'X-Next-Nonce-Expires-At': 'NextNonceExpiresAt',
});

/** The answer to a signed act: its next nonce (always), and the mark of an answer given again to a retry. */
export const ACT_ANSWER_HEADERS: HeaderSet = {
  ...alwaysSent(NEXT_NONCE_HEADERS),
  ...referenced({ 'Idempotent-Replayed': 'IdempotentReplayed' }),
};

/** A refusal of capacity (429, 503): when to send the same request again. */
export const RETRY_AFTER_HEADERS = referenced({ 'Retry-After': 'RetryAfter' });

/**
 * A page sets the visitor cookie on a visitor's first visit (api/observer/visitor_cookie.ts).
 * Inline, not a component: route declarations (api/route_docs.ts) hold it as they hold their own headers.
 */
export const VISITOR_COOKIE_HEADERS = {
  'Set-Cookie': {
    description:
      'For a visitor without one: tessera_visitor, a signed anonymous id (so a returning visitor counts as watching), and its .sig',
    schema: { type: 'string' },
  },
};

/** How long an answer may be kept, as its route decides (RFC 9111). */
export function cacheControlHeaders(description: string) {
  return { 'Cache-Control': { description, schema: { type: 'string' } } };
}

/** The validator and the caching a 304 repeats from the 200 it stands for (RFC 9110 section 15.4.5). */
const REVALIDATION_HEADERS = ['ETag', 'Cache-Control'];

/** The headers of a 304: those of its 200 that a 304 repeats, none of them promised (a 200 may lack them). */
export function notModifiedHeaders(ok_headers: HeaderSet | undefined): HeaderSet {
  return Object.fromEntries(
    Object.entries(ok_headers ?? {})
      .filter(([header]) => REVALIDATION_HEADERS.includes(header))
      .map(([header, { required: _, ...declaration }]) => [header, declaration]),
  );
}

/** A response's own headers, then those of `added` it does not declare itself (its own declaration wins). */
function joined(own: HeaderSet | undefined, added: HeaderSet): HeaderSet {
  return { ...own, ...Object.fromEntries(Object.entries(added).filter(([header]) => !own?.[header])) };
}

/** Responses with `headers` added to those whose status `applies`. Returns new objects; the given are not changed. */
export function withHeaders(
  responses: Record<string, JsonSchema>,
  headers: HeaderSet,
  applies: (status: string) => boolean = () => true,
): Record<string, JsonSchema> {
  return Object.fromEntries(
    Object.entries(responses).map(([status, response]) =>
      applies(status)
        ? [status, { ...response, headers: joined(response.headers as HeaderSet | undefined, headers) }]
        : [status, response],
    ),
  );
}

/** A read replica's 307 is answered before any limit is counted: it says nothing of one. */
export const NOT_REDIRECT = (status: string) => status !== '307';
