import type { Context } from 'koa';
import { z } from 'zod';
import { isReadRefusal, type ReadContext, type ReadDefinition } from '../engine/read.js';
import { RefusalError, ValidationError } from './refusal_error.js';
import type { Routes } from './routes.js';
import { validationItems } from './validation.js';

/** Query and path values arrive as text; an integer parameter takes only plain digits, never a guess ("1e3", " 7"). */
const INTEGER_TEXT = /^-?\d{1,15}$/;

/** The parameters of a read whose JSON type is a number, found once from its declared schema. */
function numericArgs(read: ReadDefinition): Set<string> {
  const schema = z.toJSONSchema(read.args, { io: 'input', unrepresentable: 'any' }) as { properties?: Record<string, { type?: unknown }> };
  const numeric = Object.entries(schema.properties ?? {}).filter(([, property]) => property.type === 'integer' || property.type === 'number');
  return new Set(numeric.map(([name]) => name));
}

function pathArgs(read: ReadDefinition): Set<string> {
  return new Set([...read.path.matchAll(/\{(\w+)\}/g)].map(([, name]) => name!));
}

/** The route pattern of find-my-way (`:name`) for an OpenAPI-style path (`{name}`). */
export function routePattern(path: string): string {
  return path.replace(/\{(\w+)\}/g, ':$1');
}

/** Runs a read's view; a refusal becomes the RefusalError the error middleware answers with. */
export function answerRead(read: ReadDefinition, ctx: ReadContext, args: unknown): unknown {
  const answer = read.view(ctx, args as never);
  if (isReadRefusal(answer)) throw new RefusalError(answer);
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

/**
 * Mounts each read of the catalogue as a GET route. Path and query values are one
 * argument object, parsed with the read's schema: integers from their digits, unknown
 * query keys ignored (cache busters, tracking tags), every bad value named with its
 * place (`['query', 'limit']`, `['path', 'x']`) in the 422.
 */
export function mountReads(router: Routes, reads: readonly ReadDefinition[], contextOf: () => ReadContext, overrides: Partial<Record<string, (ctx: Context, args: unknown) => void>> = {}): void {
  for (const read of reads) {
    const numeric = numericArgs(read);
    const in_path = pathArgs(read);
    const known = Object.keys(read.args.shape);
    const override = overrides[read.name];
    router.get(routePattern(read.path), (ctx) => {
      const raw: Record<string, unknown> = {};
      for (const name of known) {
        const value = in_path.has(name) ? ctx.params[name] : ctx.query[name];
        if (value === undefined) continue;
        raw[name] = numeric.has(name) && typeof value === 'string' && INTEGER_TEXT.test(value) ? Number(value) : value;
      }
      const parsed = read.args.safeParse(raw);
      if (!parsed.success) {
        const items = validationItems(parsed.error.issues, []).map((item) => ({ ...item, loc: [in_path.has(String(item.loc[0])) ? 'path' : 'query', ...item.loc] }));
        throw new ValidationError(items);
      }
      if (override) return override(ctx, parsed.data);
      const read_ctx = contextOf();
      const answer = answerRead(read, read_ctx, parsed.data);
      if (read.immutable?.(read_ctx, parsed.data as never)) ctx.set('Cache-Control', 'public, max-age=31536000, immutable');
      if (read.response.kind === 'bytes') ctx.type = read.response.media_type;
      ctx.body = answer;
    });
  }
}
