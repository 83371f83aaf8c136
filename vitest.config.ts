import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // One worker more than the cores (at most four): a good part of the suite waits on child
    // processes, sockets, leases and timers (the cluster files for minutes), and a worker waiting
    // leaves its core to the others. 2 workers on this two-core machine: 10.5 min quiet, 3: 9.1.
    maxWorkers: Math.min(4, availableParallelism() + 1),
    // Node 20 lets require() load ES modules, and aborts the whole worker (V8 fatal
    // "IsGraphAsync must be used on an instantiated module", nodejs/node#55782) when a
    // require() meets a module that an import() in flight is still linking. Vitest's
    // workers import test dependencies dynamically, and get-intrinsic (under the MCP SDK's
    // express) require()s async-function's ESM build, so a run could lose a worker at random.
    // Without require(esm), that package resolves to its CommonJS build and the race is gone.
    // The native addons are loaded before anything else in each worker (test/preload_natives.mjs).
    execArgv: ['--no-experimental-require-module', '--import', './test/preload_natives.mjs'],
    // Two long-lived workers run every file instead of a fresh process per file: each start
    // loads ~300 modules and the native addons (lmdb, sodium) again, which cost about two
    // minutes of a run and, under load, occasionally aborted a worker in a native module's
    // registration (lmdb's napi init). The tests share no module state that needs a fresh
    // process: nothing is mocked, stubbed or patched globally.
    isolate: false,
    // Every answer a test gets from a test society, in-process or a child process, is checked against the OpenAPI document (issue 31).
    // Each worker also names the file it runs, for the watchdog below.
    setupFiles: ['./test/helpers/contract_setup.ts', './test/helpers/worker_file_marker.ts'],
    // Stops a worker stuck where its tests' timeouts cannot reach, and ends a run past its limit (test/helpers/run_watchdog.ts).
    reporters: ['default', './test/helpers/run_watchdog.ts'],
  },
});
