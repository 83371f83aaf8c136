import fc from 'fast-check';
import { expect, it } from 'vitest';
import { lowerBound, upperBound } from '../engine/index.js';

it('finds, in any ascending array, the first value at least / above a value, as a scan does', () => {
  fc.assert(
    fc.property(fc.array(fc.integer({ min: -50, max: 50 })), fc.integer({ min: -60, max: 60 }), (values, value) => {
      const ascending = [...values].sort((a, b) => a - b);
      expect(lowerBound(ascending, value)).toBe(ascending.filter((v) => v < value).length);
      expect(upperBound(ascending, value)).toBe(ascending.filter((v) => v <= value).length);
    }),
  );
  expect(lowerBound(['a', 'b', 'b', 'c'], 'b')).toBe(1);
  expect(upperBound(['a', 'b', 'b', 'c'], 'b')).toBe(3);
});
