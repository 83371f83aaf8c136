import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // The crash and CLI tests spawn servers; two cores do not gain from many forks.
    maxWorkers: 2,
  },
});
