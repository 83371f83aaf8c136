import type { z } from 'zod';
import { ValidationError } from './refusal_error.js';
import { validationItems } from './validation.js';

/** Parses input with a schema or throws the 422 that names every bad field. */
export function parseOrThrow<S extends z.ZodType>(schema: S, input: unknown, loc_prefix: (string | number)[]): z.output<S> {
  const parsed = schema.safeParse(input, { reportInput: true });
  if (!parsed.success) throw new ValidationError(validationItems(parsed.error.issues, loc_prefix));
  return parsed.data;
}
