import type { RouteAnswer, RouteDoc } from '../route_docs.js';
import type { JsonSchema, SchemaComponents } from './json_schema.js';
import { parametersOf } from './reads.js';
import {
  ALWAYS_CODES,
  JSON_BODY_CODES,
  SIGNATURE_CODES,
  SIGNED,
  refusalResponses,
  replicaRedirectResponse,
  textOrBinary,
  writerOnly,
} from './responses.js';
import { type RefusalCode } from '../../engine/index.js';
import { alwaysSent, NEXT_NONCE_HEADERS, notModifiedHeaders } from './headers.js';
import { isRateLimitedRoute, limitedResponses } from './rate_limited.js';

const EMPTY_BODY_NOTE =
  "Signed with an empty canonical body: the signing string ends with the SHA-256 of ''. " + 'Send no body.';

function operationIdOf(doc: RouteDoc): string {
  const slug = doc.path
    .replace(/[{}]/g, '')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .replace(/^_|_$/g, '');
  return `${doc.method.toLowerCase()}_${slug || 'root'}`;
}

function contentOf(answer: RouteAnswer, components: SchemaComponents): JsonSchema | undefined {
  // A redirect, a 304 and an accepted notification carry no body.
  if ((answer.status >= 300 && answer.status < 400) || answer.status === 202) return undefined;
  const schema = answer.schema ? components.of(answer.schema, 'output') : textOrBinary(answer.media_type);
  return { [answer.media_type]: { schema } };
}

/** The codes a declared route may answer: its own, and those of how it is reached (limits, bodies, signatures). */
export function declaredCodes(doc: RouteDoc): RefusalCode[] {
  return [
    ...(doc.refusals ?? []),
    ...(isRateLimitedRoute(doc.method, doc.path) ? (['RATE_LIMITED'] as const) : []),
    // Routes.post parses a JSON body before the handler runs, even on routes that take none.
    ...(doc.method === 'POST' && !doc.body?.raw ? JSON_BODY_CODES : []),
    // A raw body is read as sent: an encoded one is refused before a byte is read (api/raw_body.ts).
    ...(doc.body?.raw ? (['UNSUPPORTED_MEDIA_TYPE'] as const) : []),
    ...(doc.signed ? SIGNATURE_CODES : []),
    ...(doc.signed?.by === 'founder' ? (['FOUNDER_ONLY'] as const) : []),
    // A read replica with no writer to send it to (a replicated society's failover).
    ...(writerOnly(doc.method, doc.path) ? (['NOT_LEADER'] as const) : []),
    ...ALWAYS_CODES,
  ];
}

function requestBodyOf(body: NonNullable<RouteDoc['body']>, components: SchemaComponents): JsonSchema {
  const schema = components.of(body.schema, 'input');
  return { required: true, description: body.description, content: { 'application/json': { schema } } };
}

export function declaredOperation(doc: RouteDoc, components: SchemaComponents): JsonSchema {
  const parameters = doc.args ? parametersOf(doc.path, components.of(doc.args, 'input')) : [];
  const responses: Record<string, JsonSchema> = {};
  const ok_headers = doc.answers.find((answer) => answer.status === 200)?.headers;
  for (const answer of doc.answers) {
    const headers = {
      ...(answer.status === 304 ? notModifiedHeaders(ok_headers) : {}),
      ...answer.headers,
      ...(doc.signed && answer.status < 300 ? alwaysSent(NEXT_NONCE_HEADERS) : {}),
    };
    const content = contentOf(answer, components);
    responses[String(answer.status)] = {
      description: answer.description,
      ...(Object.keys(headers).length > 0 ? { headers } : {}),
      ...(content ? { content } : {}),
    };
  }
  if (writerOnly(doc.method, doc.path) && !responses['307']) responses['307'] = replicaRedirectResponse();
  for (const [status, refusal] of Object.entries(refusalResponses(declaredCodes(doc), { signed: Boolean(doc.signed) })))
    responses[status] = responses[status] ? eitherResponse(responses[status], refusal) : refusal;
  const notes = [
    doc.description,
    doc.signed?.body === 'empty' ? EMPTY_BODY_NOTE : undefined,
    doc.signed?.by === 'founder' ? 'Signed by the Founder key.' : undefined,
    doc.open ? `The answer is open: ${doc.open}.` : undefined,
  ].filter(Boolean);
  return {
    summary: doc.summary,
    ...(notes.length > 0 ? { description: notes.join(' ') } : {}),
    operationId: operationIdOf(doc),
    // A public route says so (an empty requirement), rather than leaving a client to guess from its silence.
    security: doc.signed ? SIGNED : doc.processor_signed ? [{ stripeSignature: [] }] : [],
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(doc.body ? { requestBody: requestBodyOf(doc.body, components) } : {}),
    responses: limitedResponses(isRateLimitedRoute(doc.method, doc.path), responses),
    ...(doc.open ? { 'x-open-answer': doc.open } : {}),
  };
}

/**
 * A status a route answers in its own shape and as a refusal too (POST /mcp: a batch
 * refused whole is a JSON-RPC error, a body too large a refusal): either body, both headers.
 */
function eitherResponse(own: JsonSchema, refusal: JsonSchema): JsonSchema {
  const schemaOf = (response: JsonSchema) =>
    (response as { content?: Record<string, { schema: JsonSchema }> }).content?.['application/json']?.schema;
  const headers = { ...(refusal as { headers?: object }).headers, ...(own as { headers?: object }).headers };
  return {
    description: `${(own as { description: string }).description}; or ${(refusal as { description: string }).description}`,
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    content: { 'application/json': { schema: { oneOf: [schemaOf(own), schemaOf(refusal)] } } },
  };
}
