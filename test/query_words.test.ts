import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { validationItems } from '../api/validation.js';
import { refusedValueSentence } from '../render/query_words.js';

/** The 422 items a schema gives for a query, as the page's parser makes them. */
function refused(schema: z.ZodType, input: unknown): string[] {
  const parsed = schema.safeParse(input, { reportInput: true });
  if (parsed.success) throw new Error('expected a refusal');
  const given = input as Record<string, unknown>;
  return validationItems(parsed.error.issues, ['query']).map((item) =>
    refusedValueSentence(item, given[String(item.loc.at(-1))]),
  );
}

describe("a refused query value in a reader's words, never the schema library's", () => {
  it('says the bound a number must keep, with the value given', () => {
    const zoom = z.object({ zoom: z.int().min(-5).max(5) });
    expect(refused(zoom, { zoom: 9 })).toEqual(['The query value zoom (9) must be at most 5.']);
    expect(refused(zoom, { zoom: -9 })).toEqual(['The query value zoom (-9) must be at least -5.']);
    expect(refused(z.object({ n: z.number().lt(1) }), { n: 2 })).toEqual([
      'The query value n (2) must be less than 1.',
    ]);
    expect(refused(z.object({ n: z.number().gt(1) }), { n: 0 })).toEqual([
      'The query value n (0) must be more than 1.',
    ]);
    for (const sentence of refused(zoom, { zoom: 9 })) expect(sentence).not.toMatch(/Too big|expected|<=/);
  });

  it('says lengths, choices, forms and types in words', () => {
    expect(refused(z.object({ q: z.string().max(3) }), { q: 'abcdef' })).toEqual([
      'The query value q (abcdef) must be at most 3 characters long.',
    ]);
    expect(refused(z.object({ q: z.string().min(2) }), { q: 'a' })).toEqual([
      'The query value q (a) must be at least 2 characters long.',
    ]);
    expect(refused(z.object({ b: z.enum(['shown', 'hidden']) }), { b: 'x' })).toEqual([
      'The query value b (x) must be one of shown, hidden.',
    ]);
    expect(refused(z.object({ t: z.string().regex(/^[a-z]+$/, 'must be an event type') }), { t: 'A B' })).toEqual([
      'The query value t (A B) must be an event type.',
    ]);
    expect(refused(z.object({ t: z.string().regex(/^[a-z]+$/) }), { t: 'A' })).toEqual([
      'The query value t (A) is not in the form this page takes.',
    ]);
    expect(refused(z.object({ n: z.int() }), { n: 'x' })).toEqual(['The query value n (x) must be a number.']);
    expect(refused(z.object({ n: z.int() }), {})).toEqual(['The query value n is required.']);
  });

  it('cuts a long value and leaves out an empty one', () => {
    const [long] = refused(z.object({ q: z.string().max(3) }), { q: 'x'.repeat(100) });
    expect(long).toBe(`The query value q (${'x'.repeat(40)}…) must be at most 3 characters long.`);
    expect(refused(z.object({ q: z.string().min(1) }), { q: '' })).toEqual([
      'The query value q must be at least 1 character long.',
    ]);
  });
});
