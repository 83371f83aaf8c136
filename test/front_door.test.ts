import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/** Every module specifier a source imports or re-exports, dynamic imports included. */
function specifiers(source: string): string[] {
  const found = source.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm);
  return [...found].map((match) => match[1]!);
}

/** The engine modules a file of api/ reaches other than through the front door. */
function sideDoors(file: string, source: string): string[] {
  return specifiers(source)
    .filter((specifier) => /(^|\/)engine\//.test(specifier) && !/(^|\/)engine\/(index|pure)\.js$/.test(specifier))
    .map((specifier) => `${file}: ${specifier}`);
}

describe('the engine front door', () => {
  it('is the only way api/ reaches the engine (with its native-free part, engine/pure.ts, for worker threads)', () => {
    const api = new URL('../api/', import.meta.url);
    const files = readdirSync(api, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.ts'));
    expect(files.length).toBeGreaterThan(40);
    const found = files.flatMap((file) => sideDoors(file, readFileSync(new URL(file, api), 'utf8')));
    expect(found).toEqual([]);
  });

  it('catches a static, a type-only, a re-exported and a dynamic side door, and lets the front door through', () => {
    const source = [
      "import { Engine } from '../engine/engine.js';",
      "import type { Refusal } from '../../engine/refusals.js';",
      "export { CATALOGUE } from '../engine/catalogue.js';",
      "const store = await import('../engine/store/lmdb_store.js');",
      "import { READ_CATALOGUE } from '../engine/index.js';",
      "import { encodeChunk } from '../engine/pure.js';",
      "import { z } from 'zod';",
    ].join('\n');
    expect(sideDoors('x.ts', source)).toEqual([
      'x.ts: ../engine/engine.js',
      'x.ts: ../../engine/refusals.js',
      'x.ts: ../engine/catalogue.js',
      'x.ts: ../engine/store/lmdb_store.js',
    ]);
  });
});
