import type { Context } from 'koa';
import { z } from 'zod';
import { RefusalError, ValidationError } from './refusal_error.js';
import type { FastAnswer } from './fast_reads.js';
import type { Routes } from './routes.js';
import { validationItems, type ValidationItem } from './validation.js';
import { isRefusal, type BytesAnswer, type ReadContext, type ReadDefinition } from '../engine/index.js';

/** Query and path values arrive as text; an integer parameter takes only plain digits, never a guess ("1e3", " 7"). */
const INTEGER_TEXT = /^-?\d{1,15}$/;
/** Only to word the 422 of a value that is not an integer; good values are tested with INTEGER_TEXT alone (a route's hot path). */
const IntegerText = z.string().regex(INTEGER_TEXT, 'must be an integer');

/** An answer that can never change again, cached for a year. */
export const IMMUTABLE = 'public, max-age=31536000, immutable';

/** How the HTTP route of one read answers instead of its view (the ledger's spliced pages): args already parsed. */
export type ReadOverride = (ctx: Context, args: unknown) => void;

/** The parameters whose JSON type is a number, found once from their declared schema. */
function numericArgs(args: z.ZodObject): Set<string> {
  const schema = z.toJSONSchema(args, { io: 'input', unrepresentable: 'any' }) as {
    properties?: Record<string, { type?: unknown }>;
  };
  const numeric = Object.entries(schema.properties ?? {}).filter(
    ([, property]) => property.type === 'integer' || property.type === 'number',
  );
  return new Set(numeric.map(([name]) => name));
}

function pathArgs(path: string): Set<string> {
  return new Set([...path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name!));
}

/** The route pattern of find-my-way (`:name`) for an OpenAPI-style path (`{name}`). */
export function routePattern(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/** Runs a read's view; a refusal becomes the RefusalError the error middleware answers with. */
export function answerRead(read: ReadDefinition, ctx: ReadContext, args: unknown): unknown {
  const answer = read.view(ctx, args as never);
  if (isRefusal(answer)) throw new RefusalError(answer);
  return answer;
}

/**
 * Parses a tool call's arguments with the read's schema, strictly: a tool's input
 * schema forbids extra properties, so an unknown argument is named in the 422.
 */
export function parseToolArgs(read: ReadDefinition, raw: unknown): unknown {
  const parsed = read.args.strict().safeParse(raw ?? {});
  if (parsed.success) return parsed.data;
  throw new ValidationError(validationItems(parsed.error.issues, ['arguments']));
}

/** A route's path parameters (decoded) and its query. */
export interface RouteValues {
  params: Record<string, string | undefined>;
  query: Record<string, unknown>;
}

/**
 * The argument parser of a route (a read's, a page's). Path and query values are one
 * argument object, parsed with one schema: integers from their digits, unknown query
 * keys ignored (cache busters, tracking tags), every bad value named with its place
 * (`['query', 'limit']`, `['path', 'x']`) in the 422.
 */
export function routeArgsParser(args: z.ZodObject, path: string): (values: RouteValues) => unknown {
  const numeric = numericArgs(args);
  const in_path = pathArgs(path);
  const known = Object.keys(args.shape);
  const placeOf = (name: string) => (in_path.has(name) ? 'path' : 'query');
  return ({ params, query }) => {
    const raw: Record<string, unknown> = {};
    const not_integers: ValidationItem[] = [];
    for (const name of known) {
      const value = in_path.has(name) ? params[name] : query[name];
      if (value === undefined) continue;
      if (!numeric.has(name) || typeof value !== 'string') raw[name] = value;
      else {
        if (INTEGER_TEXT.test(value)) raw[name] = Number(value);
        else not_integers.push(...validationItems(IntegerText.safeParse(value).error!.issues, [placeOf(name), name]));
      }
    }
    const parsed = args.safeParse(raw);
    if (parsed.success && not_integers.length === 0) return parsed.data;
    // A value that is not an integer is reported as such, not as missing.
    const unparsed = new Set(not_integers.map((item) => item.loc[1]));
    const issues = parsed.success ? [] : parsed.error.issues.filter((issue) => !unparsed.has(issue.path[0] as string));
    const placed = (item: ValidationItem) => ({ ...item, loc: [placeOf(String(item.loc[0])), ...item.loc] });
    const items = validationItems(issues, []).map(placed);
    throw new ValidationError([...not_integers, ...items]);
  };
}

/**
 * A bytes read's HTTP answers: 200 with the body and its type and, when the answer has
 * an ETag, the ETag and no-cache (the bytes change with the world, so a client
 * revalidates each time); and 304 with those two, no type, no body. The read's route
 * below and the chunk fast path in front of Koa (api/chunk_fast_read.ts) both answer
 * with these, the fast path keeping them per cached chunk.
 */
export interface BytesAnswers {
  ok: FastAnswer;
  /** Only with an ETag. */
  not_modified?: FastAnswer;
  etag?: string;
}

export function bytesAnswers(media_type: string, answer: BytesAnswer): BytesAnswers {
  // A Buffer over the same bytes, no copy: Koa sends a Buffer as bytes (a Uint8Array it would write as JSON).
  const body = Buffer.from(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength);
  const ok: FastAnswer = { status: 200, headers: { 'Content-Type': media_type }, body };
  if (answer.etag === undefined) return { ok };
  const cached = { ETag: answer.etag, 'Cache-Control': 'no-cache' };
  return {
    ok: { ...ok, headers: { ...cached, ...ok.headers } },
    not_modified: { status: 304, headers: cached, body },
    etag: answer.etag,
  };
}

/** Which answer a request gets: 304 when its If-None-Match is exactly the ETag ('' when it sent none). */
export function bytesAnswerFor(answers: BytesAnswers, if_none_match: string): FastAnswer {
  return answers.not_modified && if_none_match === answers.etag ? answers.not_modified : answers.ok;
}

function sendBytes(ctx: Context, media_type: string, answer: BytesAnswer): void {
  const { status, headers, body } = bytesAnswerFor(bytesAnswers(media_type, answer), ctx.get('If-None-Match'));
  ctx.status = status;
  ctx.set(headers);
  if (status === 200) ctx.body = body;
}

/**
 * Mounts each read as a GET route at its path and its aliases. `contextOf` is called
 * once a request, so every view sees the state as it is between ticks; an override
 * answers a read's route in its own way (the answer must stay the view's).
 */
export function mountReads(
  router: Routes,
  reads: readonly ReadDefinition[],
  contextOf: () => ReadContext,
  overrides: Partial<Record<string, ReadOverride>> = {},
): void {
  for (const read of reads) {
    const argsOf = routeArgsParser(read.args, read.path);
    const override = overrides[read.name];
    const { response } = read;
    const handler = (ctx: Context) => {
      const args = argsOf(ctx);
      if (override) return override(ctx, args);
      const read_ctx = contextOf();
      const answer = answerRead(read, read_ctx, args);
      if (read.immutable?.(read_ctx, args as never)) ctx.set('Cache-Control', IMMUTABLE);
      if (response.kind === 'bytes') return sendBytes(ctx, response.media_type, answer as BytesAnswer);
      ctx.body = answer;
    };
    for (const path of [read.path, ...read.aliases]) router.get(routePattern(path), handler);
  }
}
