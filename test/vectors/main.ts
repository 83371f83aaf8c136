import { makeVectors, writeVectors } from './make_vectors.js';

/**
 * Writes docs/vectors/*.json (and the copies clients ship) from the code (npm run vectors,
 * after a build). Run from the repository's root; test/conformance_vectors.test.ts checks
 * that the files are what this writes.
 */
const vectors = await makeVectors();
for (const path of writeVectors(process.cwd(), vectors)) console.log(`${path}: written`);
process.exit(0);
