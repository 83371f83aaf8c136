import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The crash and CLI tests spawn servers; two cores do not gain from many forks.
    maxWorkers: 2,
    // Node 20 lets require() load ES modules, and aborts the whole worker (V8 fatal
    // "IsGraphAsync must be used on an instantiated module", nodejs/node#55782) when a
    // require() meets a module that an import() in flight is still linking. Vitest's
    // workers import test dependencies dynamically, and get-intrinsic (under the MCP SDK's
    // express) require()s async-function's ESM build, so a run could lose a worker at random.
    // Without require(esm), that package resolves to its CommonJS build and the race is gone.
    execArgv: ['--no-experimental-require-module'],
  },
});
