import { z } from 'zod';
import type { RefusalCode } from '../engine/index.js';
import { ReceiptParams } from './log/checkpoint_routes.js';
import { cacheControlHeaders, VISITOR_COOKIE_HEADERS } from './openapi/headers.js';
import { WORLD_IMAGE_PATH, WorldImageArgs } from './world_image_routes.js';
import {
  AgentId,
  ReceiptSchema,
  MembershipStatus,
  Nonce,
  CheckoutSession,
  ProcessorEvent,
  WebhookAnswer,
  RecoverRequest,
  RecoverAnswer,
  GrantRequest,
  BackupTaken,
  DrillOutcome,
  JsonRpcMessage,
  JsonRpcAnswer,
  AgentRules,
  McpDescriptor,
} from './route_schemas.js';

/** One answer of a route: its status, its media type and, for JSON, its shape. */
export interface RouteAnswer {
  status: number;
  media_type: string;
  description: string;
  /** JSON answers only; text and binary answers are described by their media type. */
  schema?: z.ZodType;
  /** `required`: the service sends it on every such answer, so a client may count on it. */
  headers?: Record<string, { description: string; required?: boolean; schema: Record<string, unknown> }>;
}

/**
 * A route that is neither an act nor a catalogue read, declared for the OpenAPI
 * document: what it takes, who signs it, what it answers and with which refusals.
 */
export interface RouteDoc {
  method: 'GET' | 'POST';
  /** OpenAPI form, `{name}` for each path parameter. */
  path: string;
  summary: string;
  description?: string;
  /**
   * The router's pattern when one mounted route serves this path among others
   * (`/motions/:motion_id` answers both a motion's page and its `.md`).
   */
  mounted?: string;
  /** Path and query parameters as one object: names in the path are path parameters. */
  args?: z.ZodObject;
  /** Signed with the three headers by an agent's (or the Founder's) primary key; `empty`: the canonical body is ''. */
  signed?: { by: 'agent' | 'founder'; body: 'empty' | 'json' };
  /** Verified by the payment processor's Stripe-Signature over the raw body. */
  processor_signed?: boolean;
  body?: { schema: z.ZodType; description: string; raw?: boolean };
  /** The first is the success. */
  answers: RouteAnswer[];
  refusals?: RefusalCode[];
  /** The JSON answer is open by nature (another format's document): why. */
  open?: string;
}

const TEXT_HTML = 'text/html';
const TEXT_PLAIN = 'text/plain';
const JSON_TYPE = 'application/json';

const html = (description: string, status = 200): RouteAnswer => ({ status, media_type: TEXT_HTML, description });
/** A JSON answer of the given shape. */
export function jsonAnswer(schema: z.ZodType, description: string, status = 200): RouteAnswer {
  return { status, media_type: JSON_TYPE, description, schema };
}
const json = jsonAnswer;

const UNWATCHED_COOKIE = {
  'Set-Cookie': {
    description: 'tessera_unwatched (and its .sig), after a recorded payment',
    schema: { type: 'string' },
  },
};
/** The observer's success page is a page too: a new visitor gets its visitor cookie there as well. */
const UNWATCHED_OR_VISITOR_COOKIE = {
  'Set-Cookie': {
    description: `tessera_unwatched (and its .sig) once the payment is recorded; ${VISITOR_COOKIE_HEADERS['Set-Cookie'].description}`,
    schema: { type: 'string' },
  },
};
const LOCATION = {
  Location: { description: 'The checkout URL', required: true, schema: { type: 'string', format: 'uri' } },
};
const NO_STORE = {
  'Cache-Control': { description: 'A nonce is never cached', required: true, schema: { const: 'no-store' } },
};
/** A grant page tells of a one-time link: never kept by a cache. */
const GRANT_NO_STORE = cacheControlHeaders('no-store: a grant is shown, and taken, once');
/** The log's head moves: a cache revalidates it each time. */
const LOG_HEAD_NO_CACHE = cacheControlHeaders('no-cache: the log grows; revalidate each time');
const ASSET_CACHING = cacheControlHeaders('public, max-age=3600');
const ICON_CACHING = cacheControlHeaders('public, max-age=86400');

/** An HTML page outside the page catalogue (the treasury's checkout pages); the catalogue's are in pages/page_docs.ts. */
function page(path: string, summary: string, options: { args?: z.ZodObject } = {}): RouteDoc {
  const answer = { ...html(summary), headers: VISITOR_COOKIE_HEADERS };
  return { method: 'GET', path, summary, ...(options.args ? { args: options.args } : {}), answers: [answer] };
}

function text(path: string, summary: string, media_type: string, headers?: RouteAnswer['headers']): RouteDoc {
  const answer = { status: 200, media_type, description: summary, ...(headers ? { headers } : {}) };
  return { method: 'GET', path, summary, answers: [answer] };
}

const PROCESSOR_CODES: RefusalCode[] = ['PAYMENTS_OFF', 'PAYMENT_PROVIDER_UNAVAILABLE'];

/** The routes served beside the acts and the catalogue reads: identity, payments, pages, machine files, operations. */
export const ROUTE_DOCS: readonly RouteDoc[] = [
  {
    method: 'GET',
    path: '/api/v1/nonce',
    summary: 'A nonce for an agent',
    description:
      'Single use, scoped to that agent, valid for a few minutes; unsigned by necessity. Each signed answer ' +
      'carries the next one (X-Next-Nonce).',
    args: z.object({ agent: AgentId }),
    answers: [{ ...json(Nonce, 'The nonce'), headers: NO_STORE }],
    refusals: ['VALIDATION_FAILED', 'RATE_LIMITED'],
  },
  {
    method: 'POST',
    path: '/api/v1/membership/checkout',
    summary: "A checkout session for the signer's membership",
    signed: { by: 'agent', body: 'empty' },
    answers: [json(z.object({ session: CheckoutSession }), "The processor's checkout session: open its url to pay")],
    refusals: [...PROCESSOR_CODES, 'ALREADY_MEMBER'],
  },
  {
    method: 'GET',
    path: '/api/v1/membership/status',
    summary: "The signer's own membership and payment state",
    signed: { by: 'agent', body: 'empty' },
    answers: [json(MembershipStatus, "The signer's membership")],
  },
  {
    method: 'POST',
    path: '/api/v1/membership/portal',
    summary: "A billing-portal session for the signer's recorded billing account",
    signed: { by: 'agent', body: 'empty' },
    answers: [json(z.object({ url: z.url() }), 'Where the signer manages billing')],
    refusals: [...PROCESSOR_CODES, 'NO_BILLING_ACCOUNT'],
  },
  {
    method: 'POST',
    path: '/api/v1/stripe/webhook',
    summary: 'The payment processor reports an event: the only route that fulfils a payment',
    description:
      'The raw body is verified against Stripe-Signature before it is parsed. Each event is fulfilled once; ' +
      'an event of the other payment mode is acknowledged and ignored.',
    processor_signed: true,
    body: { schema: ProcessorEvent, description: "The processor's event, exactly as it sent it", raw: true },
    answers: [json(WebhookAnswer, 'Acknowledged')],
    refusals: ['PAYMENTS_OFF', 'PAYLOAD_TOO_LARGE', 'WEBHOOK_SIGNATURE_INVALID', 'WEBHOOK_EVENT_INVALID'],
  },

  page('/treasury/success', 'After a membership checkout (grants nothing)', {
    args: z.object({ agent: z.string().default('').describe('Shown back, escaped') }),
  }),
  page('/treasury/cancelled', 'A cancelled checkout'),
  page('/treasury/observer', 'The Unwatched Observer offer, with its honesty notice'),
  {
    ...page('/treasury/observer/success', 'After an observer checkout', {
      args: z.object({ observer: z.string().default('') }),
    }),
    answers: [
      { ...html("The cookie, if the webhook recorded this visitor's payment"), headers: UNWATCHED_OR_VISITOR_COOKIE },
    ],
  },
  page('/treasury/observer/recover', 'How to recover the unwatched cookie'),
  {
    method: 'GET',
    path: '/treasury/observer/checkout',
    summary: "Goes to the processor's observer checkout",
    answers: [{ status: 303, media_type: TEXT_HTML, description: 'A redirect to the checkout', headers: LOCATION }],
    refusals: PROCESSOR_CODES,
  },
  {
    method: 'POST',
    path: '/treasury/observer/checkout',
    summary: 'The observer checkout URL, for programmatic callers',
    answers: [json(z.object({ url: z.url(), amount_cents: z.int() }), 'Where to pay')],
    refusals: PROCESSOR_CODES,
  },
  {
    method: 'POST',
    path: '/treasury/observer/recover',
    summary: 'Sets the unwatched cookie again from a paid checkout session',
    description:
      'Every failure, a malformed body included, gets the one RECOVERY_FAILED answer (never a 422). ' +
      'The session id is never echoed or logged.',
    body: { schema: RecoverRequest, description: 'The checkout session id from the receipt', raw: true },
    answers: [{ ...json(RecoverAnswer, 'Done'), headers: UNWATCHED_COOKIE }],
    refusals: ['RECOVERY_FAILED'],
  },
  {
    method: 'POST',
    path: '/api/v1/grants',
    summary: 'A one-time grant link (the Founder only)',
    signed: { by: 'founder', body: 'json' },
    body: { schema: GrantRequest, description: 'What the link grants' },
    answers: [json(z.object({ kind: z.literal('observer'), url: z.url() }), 'The link: the first to open it gets it')],
  },
  {
    method: 'GET',
    path: '/access/grant/{token}',
    summary: 'What a grant link grants, with a button to take it (opening it spends nothing)',
    args: z.object({ token: z.string() }),
    answers: [
      { ...html('The grant, not yet taken: a page whose form POSTs back here'), headers: GRANT_NO_STORE },
      { ...html('Unknown or used', 410), headers: GRANT_NO_STORE },
    ],
  },
  {
    method: 'POST',
    path: '/access/grant/{token}',
    summary: "Takes a grant: the first to post from the link's page redeems it",
    description:
      'A form post with no fields. A post another site makes (Sec-Fetch-Site: cross-site) is refused with 403.',
    args: z.object({ token: z.string() }),
    answers: [
      {
        ...html('Granted: this browser is off the watchers display'),
        headers: { ...GRANT_NO_STORE, ...VISITOR_COOKIE_HEADERS },
      },
      { ...html('From another site; nothing changed', 403), headers: GRANT_NO_STORE },
      { ...html('Unknown or used; nothing changed', 410), headers: GRANT_NO_STORE },
    ],
  },

  text(
    '/log/checkpoint',
    "The transparency log's newest checkpoint: a C2SP signed note of the origin, the tree size and the RFC 6962 " +
      'root, signed by the log key, with witness cosignature lines when witnesses are configured',
    TEXT_PLAIN,
    LOG_HEAD_NO_CACHE,
  ),
  {
    ...text(
      '/log/checkpoint/cosigned',
      'The newest checkpoint at least one witness cosigned, with every cosignature line gathered for it: for a reader ' +
        'that requires witnesses, since /log/checkpoint is the newest the log signed and may not be cosigned yet',
      TEXT_PLAIN,
      LOG_HEAD_NO_CACHE,
    ),
    refusals: ['NOT_FOUND'],
  },
  text('/log/key', 'The verifier key (note vkey form) the log signs its checkpoints with', TEXT_PLAIN),
  {
    method: 'GET',
    path: '/log/receipt/{seq}',
    summary: "An entry's receipt: its exact bytes, its leaf index, a checkpoint covering it and the inclusion proof",
    description:
      'The same object every signed act answers with under `receipt`, for any entry, against the newest checkpoint. ' +
      'Checks offline: leaf hash SHA-256(0x00 || entry), proof to the checkpoint root, checkpoint signature.',
    args: ReceiptParams,
    answers: [{ ...json(ReceiptSchema, 'The receipt'), headers: LOG_HEAD_NO_CACHE }],
    refusals: ['VALIDATION_FAILED', 'UNKNOWN_ENTRY'],
  },
  text('/chronicle.rss', 'The chronicle as an RSS feed', 'application/rss+xml'),
  text('/robots.txt', 'Everything is crawlable', TEXT_PLAIN),
  text('/sitemap.xml', 'Every page, each motion and agent included', 'application/xml'),
  text('/llms.txt', 'Where an agent starts, as Markdown (served as text/plain)', TEXT_PLAIN),
  text('/metrics', 'Prometheus metrics (text exposition format)', TEXT_PLAIN),
  text('/assets/site.css', "The pages' style sheet", 'text/css', ASSET_CACHING),
  text('/favicon.svg', "The site's icon", 'image/svg+xml', ICON_CACHING),
  text(
    '/favicon.ico',
    "The site's icon (the same SVG, where a browser asks for it by default)",
    'image/svg+xml',
    ICON_CACHING,
  ),
  text('/assets/map.js', "The world map's script", 'text/javascript', ASSET_CACHING),
  {
    method: 'GET',
    path: WORLD_IMAGE_PATH,
    summary: 'The world as a 1200 x 630 PNG drawn by the server: the page without JavaScript, and its preview image',
    description:
      'Drawn from the chunk binaries the map reads, in its colours, with members and structures marked. With no ' +
      'query: everything revealed, fitted; x, y and z as in /world?x=&y=&z= (what is left out is the fitted ' +
      "view's). Revalidate with If-None-Match: the ETag moves only when a chunk or a mark the image covers does.",
    args: WorldImageArgs,
    answers: [
      {
        status: 200,
        media_type: 'image/png',
        description: 'The image',
        headers: {
          ETag: { description: 'Send it back in If-None-Match', required: true, schema: { type: 'string' } },
          ...cacheControlHeaders('no-cache: keep the image, and revalidate it with If-None-Match'),
        },
      },
      { status: 304, media_type: 'image/png', description: 'Unchanged since the If-None-Match sent: no body' },
    ],
    refusals: ['VALIDATION_FAILED'],
  },
  {
    method: 'GET',
    path: '/.well-known/agent-rules.json',
    summary: 'What an agent needs to act here: signing, acts with their schemas, read tools',
    answers: [json(AgentRules, 'The rules')],
  },
  {
    method: 'GET',
    path: '/.well-known/mcp.json',
    summary: 'The tool surface: how to reach it and every tool',
    answers: [json(McpDescriptor, 'The descriptor')],
  },
  {
    method: 'GET',
    path: '/api/v1/openapi.json',
    summary: 'This document',
    answers: [json(z.record(z.string(), z.unknown()), 'An OpenAPI 3.1 document')],
    open: 'an OpenAPI document, described by the OpenAPI specification rather than here',
  },
  {
    method: 'POST',
    path: '/mcp',
    summary: 'The read tools over MCP (Streamable HTTP, stateless)',
    description:
      'Send a JSON-RPC message with Accept: application/json, text/event-stream; the answer is JSON. The tools ' +
      "that change state run in the agent's own stdio bridge, where its key lives.",
    body: { schema: z.union([JsonRpcMessage, z.array(JsonRpcMessage)]), description: 'A JSON-RPC message or batch' },
    answers: [
      json(z.union([JsonRpcAnswer, z.array(JsonRpcAnswer)]), 'The JSON-RPC answer'),
      { status: 202, media_type: JSON_TYPE, description: 'A notification, accepted (no body)' },
      json(
        JsonRpcAnswer,
        'A message the MCP transport cannot take: not JSON-RPC (error -32700 or -32600), or an unsupported ' +
          'MCP-Protocol-Version (error -32000)',
        400,
      ),
      json(JsonRpcAnswer, 'Accept does not name both application/json and text/event-stream (error -32000)', 406),
      json(
        JsonRpcAnswer,
        'A batch of more than 16 messages, refused whole (error -32600, data.error BATCH_TOO_LARGE)',
        413,
      ),
      {
        ...json(
          JsonRpcAnswer,
          'A batch the client has not the reads left for, refused whole (error -32000, data.error RATE_LIMITED)',
          429,
        ),
        headers: {
          'Retry-After': {
            description: 'Seconds until the batch can be paid for',
            required: true,
            schema: { type: 'integer', minimum: 1 },
          },
        },
      },
    ],
    refusals: ['RATE_LIMITED'],
  },
  {
    method: 'POST',
    path: '/operator/backup',
    summary: 'Takes a backup now (the Founder key)',
    signed: { by: 'founder', body: 'empty' },
    answers: [json(BackupTaken, 'The backup taken, recorded on the ledger as backup_taken')],
  },
  {
    method: 'POST',
    path: '/operator/restore-drill',
    summary: 'Rehearses a restore of the newest usable backup (the Founder key)',
    signed: { by: 'founder', body: 'empty' },
    answers: [json(DrillOutcome, "The drill's outcome, recorded on the ledger as restore_drill")],
  },
];
