import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { newestBefore } from '../engine/reads/publications.js';

/** The general version the bisection stands in for: every item filtered, then the page. */
const filtered = (ids: number[], before: number | undefined, limit: number) =>
  (before === undefined ? ids : ids.filter((id) => id < before)).slice(-limit).reverse();

describe('a page of a history (bulletin, chronicle), newest first', () => {
  it('is what filtering the whole history gives, for any before and limit', () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: 400 }), { maxLength: 300 }),
        fc.option(fc.integer({ min: 0, max: 420 }), { nil: undefined }),
        fc.integer({ min: 1, max: 500 }),
        (unordered, before, limit) => {
          // Histories as the engine keeps them: ascending ids (1, 2, 3, ... there; gaps here too).
          const ids = unordered.sort((a, b) => a - b);
          expect(newestBefore(ids, (id) => id, before, limit)).toEqual(filtered(ids, before, limit));
        },
      ),
    );
  });
});
