import type { z } from 'zod';

/** One item of the specification's 422 body. */
export interface ValidationItem {
  loc: (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Record<string, unknown>;
}

type Issue = z.core.$ZodIssue;

/**
 * Zod issues in the 422 shape of the specification: where (loc), what (msg), a
 * stable machine type, the offending input and the constraint (ctx).
 */
export function validationItems(issues: readonly Issue[], loc_prefix: readonly (string | number)[]): ValidationItem[] {
  return issues.flatMap((issue) => {
    const loc = [...loc_prefix, ...issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part))];
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        loc: [...loc, key],
        msg: 'Extra inputs are not permitted',
        type: 'extra_forbidden',
      }));
    }
    const item: ValidationItem = { loc, ...describe(issue) };
    if (isSmall(issue.input)) item.input = issue.input;
    return [item];
  });
}

function describe(issue: Issue): { msg: string; type: string; ctx?: Record<string, unknown> } {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return { msg: 'Field required', type: 'missing' };
      return { msg: issue.message, type: `${issue.expected}_type`, ctx: { expected: issue.expected } };
    case 'too_small':
      if (issue.origin === 'string')
        return { msg: issue.message, type: 'string_too_short', ctx: { min_length: Number(issue.minimum) } };
      if (issue.origin === 'array')
        return { msg: issue.message, type: 'too_short', ctx: { min_length: Number(issue.minimum) } };
      return {
        msg: issue.message,
        type: issue.inclusive ? 'greater_than_equal' : 'greater_than',
        ctx: { limit: Number(issue.minimum) },
      };
    case 'too_big':
      if (issue.origin === 'string')
        return { msg: issue.message, type: 'string_too_long', ctx: { max_length: Number(issue.maximum) } };
      if (issue.origin === 'array')
        return { msg: issue.message, type: 'too_long', ctx: { max_length: Number(issue.maximum) } };
      return {
        msg: issue.message,
        type: issue.inclusive ? 'less_than_equal' : 'less_than',
        ctx: { limit: Number(issue.maximum) },
      };
    case 'invalid_format':
      return {
        msg: issue.message,
        type: 'string_pattern_mismatch',
        ctx: { format: issue.format, ...(issue.pattern ? { pattern: issue.pattern } : {}) },
      };
    case 'invalid_value':
      return { msg: issue.message, type: 'enum', ctx: { expected: issue.values } };
    case 'not_multiple_of':
      return { msg: issue.message, type: 'multiple_of', ctx: { multiple_of: Number(issue.divisor) } };
    default:
      return { msg: issue.message, type: 'value_error' };
  }
}

const echoed_input_chars_max = 512;

/** The offending input is echoed back only when it is small: a refusal must not amplify a large body. */
function isSmall(input: unknown): boolean {
  if (input === undefined) return false;
  if (input === null || typeof input !== 'object')
    return typeof input !== 'string' || input.length <= echoed_input_chars_max;
  return JSON.stringify(input).length <= echoed_input_chars_max;
}
