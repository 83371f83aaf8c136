import { z } from 'zod';
import { canonicalJson } from '../engine/index.js';
import { ValidationError } from './refusal_error.js';
import { validationItems } from './validation.js';

/** Parses input with a schema or throws the 422 that names every bad field. */
export function parseOrThrow<S extends z.ZodType>(
  schema: S,
  input: unknown,
  loc_prefix: (string | number)[],
): z.output<S> {
  // Plain parsing keeps zod's fast path (passing options slows every parse); the
  // input is reported back only when the 422 is being written.
  const parsed = schema.safeParse(input);
  if (parsed.success) return parsed.data;
  const reported = schema.safeParse(input, { reportInput: true });
  throw new ValidationError(validationItems((reported.error ?? parsed.error).issues, loc_prefix));
}

/**
 * The canonical (JCS) text of a parsed body. JSON may carry a lone UTF-16 surrogate
 * ("\ud800"), which has no canonical form; that is the caller's error, named by field.
 */
export function canonicalOrThrow(value: unknown, loc_prefix: (string | number)[]): string {
  try {
    return canonicalJson(value);
  } catch {
    const path = lonelySurrogatePath(value) ?? [];
    throw new ValidationError([
      {
        loc: [...loc_prefix, ...path],
        msg: 'Text must be valid Unicode: a lone surrogate (\\ud800-\\udfff) has no canonical form',
        type: 'string_unicode',
      },
    ]);
  }
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

function lonelySurrogatePath(value: unknown): (string | number)[] | undefined {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? [] : undefined;
  if (value === null || typeof value !== 'object') return undefined;
  for (const [key, inner] of Object.entries(value)) {
    if (LONE_SURROGATE.test(key)) return [key];
    const found = lonelySurrogatePath(inner);
    if (found) return [Array.isArray(value) ? Number(key) : key, ...found];
  }
  return undefined;
}
