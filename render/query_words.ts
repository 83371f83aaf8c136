/*
 * A refused query value in a reader's words. The 422 detail's `msg` is the schema library's
 * ("Too big: expected number to be <=5"); a page says what the value must be instead, from
 * the detail's stable `type` and `ctx`, which the API's 422 body carries too.
 */

import { plural } from './words.js';

/** The parts of one item of the 422 body that the words are made from (api/validation.ts). */
export interface RefusedValue {
  loc: readonly (string | number)[];
  msg: string;
  type: string;
  input?: unknown;
  ctx?: Readonly<Record<string, unknown>>;
}

const TYPE_NAMES: Readonly<Record<string, string>> = {
  int: 'a whole number',
  number: 'a number',
  string: 'text',
  boolean: 'true or false',
};

/** What the value must be, as the end of a sentence ("must be at most 5"); the library's own words when no rule fits. */
function mustBe(refused: RefusedValue): string {
  const ctx = refused.ctx ?? {};
  switch (refused.type) {
    case 'missing':
      return 'is required';
    case 'less_than_equal':
      return `must be at most ${String(ctx.limit)}`;
    case 'less_than':
      return `must be less than ${String(ctx.limit)}`;
    case 'greater_than_equal':
      return `must be at least ${String(ctx.limit)}`;
    case 'greater_than':
      return `must be more than ${String(ctx.limit)}`;
    case 'string_too_long':
      return `must be at most ${plural(Number(ctx.max_length), 'character')} long`;
    case 'string_too_short':
      return `must be at least ${plural(Number(ctx.min_length), 'character')} long`;
    case 'enum':
      return `must be one of ${(Array.isArray(ctx.expected) ? ctx.expected : []).map(String).join(', ')}`;
    case 'string_pattern_mismatch':
      // The schema's own message says which form (".. must be an event type"), when it has one.
      return /^must /.test(refused.msg) ? refused.msg : 'is not in the form this page takes';
    default: {
      const expected = TYPE_NAMES[refused.type.replace(/_type$/, '')];
      if (expected !== undefined && refused.type.endsWith('_type')) return `must be ${expected}`;
      return `cannot be used: ${refused.msg}`;
    }
  }
}

const shown_input_chars_max = 40;

/**
 * "The query value zoom (9) must be at most 5." `given` is the value as the query held it
 * (the 422 item echoes its input only when the schema library reports it).
 */
export function refusedValueSentence(refused: RefusedValue, given: unknown = refused.input): string {
  const name = String(refused.loc.at(-1));
  const text = typeof given === 'string' || typeof given === 'number' ? String(given) : '';
  const shown =
    text === '' ? '' : ` (${text.length > shown_input_chars_max ? `${text.slice(0, shown_input_chars_max)}…` : text})`;
  return `The query value ${name}${shown} ${mustBe(refused)}.`;
}
