import type { JsonSchema } from './json_schema.js';
import { REFUSALS, type RefusalCode } from '../../engine/index.js';
import { alwaysSent, cacheControlHeaders, NEXT_NONCE_HEADERS, RETRY_AFTER_HEADERS, type HeaderSet } from './headers.js';

export const REFUSAL_CODES = Object.keys(REFUSALS) as RefusalCode[];

/** The body of every refusal (errors_middleware.ts, refusalBody): a refusal's details ride beside the two fields. */
export const REFUSAL_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['error', 'message'],
  properties: {
    error: { type: 'string', enum: REFUSAL_CODES, description: 'The refusal code (engine/refusals.ts, README table)' },
    message: { type: 'string', description: 'What went wrong, for a person' },
    retry_after_seconds: {
      type: 'integer',
      minimum: 1,
      description: 'With RATE_LIMITED: when to try again (also the Retry-After header)',
    },
  },
  additionalProperties: {
    description: 'Details of this refusal (a hint, the field at fault, the canonical body the server signed over, ...)',
  },
};

/** The specification's 422 body: every bad field and where it is (`['query', 'limit']`, `['body', 'payload', 'x']`). */
export const VALIDATION_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['detail'],
  properties: {
    detail: {
      type: 'array',
      minItems: 1,
      items: {
        type: 'object',
        required: ['loc', 'msg', 'type'],
        properties: {
          loc: { type: 'array', items: { type: ['string', 'integer'] } },
          msg: { type: 'string' },
          type: { type: 'string' },
          input: { description: 'The value at fault, when it is safe to echo' },
          ctx: { type: 'object', additionalProperties: true, description: 'The limit broken (minimum, maximum, ...)' },
        },
      },
    },
  },
};

/**
 * Refusals answered before a signature is checked: no next nonce rides on them. Not 429:
 * an act's own rolling limit refuses after the signature held (a registration limiter's
 * 429, before it, carries none, so the next nonce is declared and not promised).
 */
const BEFORE_SIGNATURE = new Set<number>([400, 401, 413, 415, 422]);

/** Retry-After: on every 429; on a 503 when its refusal says when (QUEUE_FULL, NOT_LEADER, OUTCOME_PENDING do). */
const RETRY_AFTER_BY_STATUS: Record<number, HeaderSet> = {
  429: alwaysSent(RETRY_AFTER_HEADERS),
  503: RETRY_AFTER_HEADERS,
};

const STATUS_WORDS: Record<number, string> = {
  400: 'Bad request',
  401: 'Not authenticated',
  402: 'Membership required',
  403: 'Forbidden',
  404: 'Not found',
  409: 'Conflict with the current state',
  410: 'Gone',
  413: 'Body too large',
  415: 'Unsupported media type',
  429: 'Rate limited',
  500: 'Internal failure',
  502: 'Payment processor unavailable',
  503: 'Service busy',
};

/** What every signed route may answer before it gets to its own work. */
export const SIGNATURE_CODES: readonly RefusalCode[] = ['SIG_INVALID', 'NONCE_INVALID', 'UNKNOWN_AGENT', 'WEAK_KEY'];

/** What a route taking a JSON body may answer before it looks at the body's meaning. */
export const JSON_BODY_CODES: readonly RefusalCode[] = [
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'VALIDATION_FAILED',
];

/** The one body a bug gets: every operation may answer it. */
export const ALWAYS_CODES: readonly RefusalCode[] = ['INTERNAL'];

/** The three headers of a signed request, required together: one requirement naming all three schemes. */
export const SIGNED = [{ agentId: [], nonce: [], signature: [] }];

const header = (name: string, description: string) => ({ type: 'apiKey', in: 'header', name, description });

export const SECURITY_SCHEMES = {
  agentId: header('X-Agent-Id', 'The signer: ag_ and 16 hex digits of the SHA-256 of its public key'),
  nonce: header('X-Nonce', "From GET /api/v1/nonce?agent=<agent_id> or the last answer's X-Next-Nonce; single use"),
  signature: header(
    'X-Signature',
    'base64url ed25519 signature of the society-sig-v1 signing string over the canonical body (docs/protocol.md#nonces-and-signatures)',
  ),
  stripeSignature: header('Stripe-Signature', "The payment processor's signature over the exact raw body"),
};

export interface RefusalResponseOptions {
  /** The route verifies a signature: answers after it carry the next nonce. */
  signed?: boolean;
}

/**
 * One response per HTTP status, each naming exactly the refusal codes answered with
 * that status (a code has one status: engine/refusals.ts). 422 is the validation body.
 */
export function refusalResponses(codes: Iterable<string>, options: RefusalResponseOptions = {}) {
  const by_status = new Map<number, string[]>();
  for (const code of new Set(codes)) {
    const status = (REFUSALS as Record<string, { status: number } | undefined>)[code]?.status;
    if (status === undefined) throw new Error(`${code} is not a refusal code (engine/refusals.ts)`);
    by_status.set(status, [...(by_status.get(status) ?? []), code]);
  }
  const responses: Record<string, JsonSchema> = {};
  for (const [status, listed] of [...by_status].sort(([a], [b]) => a - b)) {
    if (status === 422) {
      responses['422'] = validationResponse();
      continue;
    }
    const next_nonce = options.signed && !BEFORE_SIGNATURE.has(status);
    const headers = { ...RETRY_AFTER_BY_STATUS[status], ...(next_nonce ? NEXT_NONCE_HEADERS : {}) };
    const schema = { allOf: [{ $ref: '#/components/schemas/Refusal' }], properties: { error: { enum: listed } } };
    responses[String(status)] = {
      description: `${STATUS_WORDS[status] ?? 'Refused'}: ${listed.join(', ')}`,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      content: { 'application/json': { schema } },
    };
  }
  return responses;
}

/** A body that is not JSON: text (HTML, Markdown, XML, CSS, scripts) as a string, anything else as bytes. */
export function textOrBinary(media_type: string): JsonSchema {
  if (media_type.startsWith('text/') || media_type.endsWith('xml')) return { type: 'string' };
  return { type: 'string', format: 'binary', contentMediaType: media_type };
}

export function validationResponse(): JsonSchema {
  const schema = { $ref: '#/components/schemas/ValidationError' };
  return { description: 'The request does not match its schema', content: { 'application/json': { schema } } };
}

/**
 * Whether a read replica sends this request on to the writer: every method but GET, HEAD
 * and OPTIONS save POST /mcp (its tools are reads), and GET /api/v1/nonce (only the
 * writer's nonce book can check the nonce later). The rule of api/cluster/replica_writes.ts.
 */
export function writerOnly(method: string, path: string): boolean {
  const upper = method.toUpperCase();
  if (upper === 'GET' || upper === 'HEAD') return path === '/api/v1/nonce';
  if (upper === 'OPTIONS') return false;
  return !(upper === 'POST' && path === '/mcp');
}

/** The body of a read replica's 307 (api/cluster/replica_writes.ts). */
export const REPLICA_REDIRECT_SCHEMA: JsonSchema = {
  type: 'object',
  required: ['redirect', 'location'],
  properties: {
    redirect: { type: 'string', description: 'Why: this node is a read replica' },
    location: {
      type: 'string',
      format: 'uri',
      description: 'The same request at the writer (also the Location header)',
    },
  },
};

/**
 * A writer-only request sent to a read replica of a replicated society: 307 to the
 * writer, method and body kept (a signature never covers the host, so it holds there).
 * With no writer known, the replica answers 503 NOT_LEADER instead.
 */
export function replicaRedirectResponse(): JsonSchema {
  return {
    description: 'A read replica sends the request on to the writer, method and body kept (a replicated society only)',
    headers: {
      Location: { description: 'The same request at the writer', schema: { type: 'string', format: 'uri' } },
      ...cacheControlHeaders('no-store: the writer may answer otherwise next time'),
    },
    content: { 'application/json': { schema: { $ref: '#/components/schemas/ReplicaRedirect' } } },
  };
}
