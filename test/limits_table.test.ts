import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { limitRows, limitsTable } from '../api/limits.js';
import { configFromEnv } from '../api/config.js';

describe("the README's Limits table", () => {
  it('is the table api/limits.ts makes from where each bound is declared', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const shown = /<!-- limits:begin -->\n([\s\S]*?)\n<!-- limits:end -->/.exec(readme)?.[1];
    // To update it: npm run build && node --input-type=module -e "import {limitsTable} from './dist/api/limits.js'; console.log(limitsTable())"
    expect(shown).toBe(limitsTable());
  });

  it('names only settings the configuration reads, each of them in the configuration table', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
    const settings = limitRows().flatMap((row) => row.setting?.split(', ') ?? []);
    expect(settings.length).toBeGreaterThan(5);
    for (const setting of settings) {
      expect(readme, setting).toContain(`| \`${setting}\` |`);
      // A bad value of it stops start-up, naming it: the configuration reads it.
      expect(() => configFromEnv({ [setting]: 'not-a-number' }), setting).toThrow(setting);
    }
  });
});
