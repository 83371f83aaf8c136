import { readdirSync, readFileSync } from 'node:fs';
import { expect, it } from 'vitest';
import { REFUSALS } from '../engine/index.js';

// "Every refusal code has a test": a code no test names is one nobody has seen answered. This file names none itself.
it('names every refusal code in some test, in quotes, as an answer a test expects', () => {
  const folder = new URL('./', import.meta.url);
  const tests = readdirSync(folder)
    .filter((name) => name.endsWith('.test.ts') && name !== 'refusal_coverage.test.ts')
    .map((name) => readFileSync(new URL(name, folder), 'utf8'))
    .join('\n');
  const untested = Object.keys(REFUSALS).filter((code) => !new RegExp(`['"\`]${code}['"\`]`).test(tests));
  expect(untested).toEqual([]);
});
