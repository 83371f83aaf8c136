import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeVectors, VECTOR_FILES } from './make_vectors.js';

/**
 * Writes docs/vectors/*.json from the code (npm run vectors, after a build). Run from the
 * repository's root; test/conformance_vectors.test.ts checks that the files are what this writes.
 */
const dir = join(process.cwd(), 'docs', 'vectors');
const vectors = await makeVectors();
for (const file of VECTOR_FILES) {
  writeFileSync(join(dir, file), vectors[file]);
  console.log(`docs/vectors/${file}: ${Buffer.byteLength(vectors[file])} bytes`);
}
process.exit(0);
