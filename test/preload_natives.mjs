// Loaded by every vitest worker before vitest's own code (vitest.config.ts, execArgv --import).
// The native addons register here, at process start, with nothing else loading: a worker that
// first met lmdb in the middle of a run, while other modules were being imported, now and then
// died in lmdb's napi registration ("FATAL ERROR: Error::ThrowAsJavaScriptException napi_throw").
// Threads inherit execArgv, so this runs in every pool thread a test starts (the chunk cache's)
// too: there it must load nothing, or each thread registers lmdb beside the others, which is
// the same fatal again (seen twice in clean-clone CI runs on 2026-11-25).
import { isMainThread } from 'node:worker_threads';

if (isMainThread) {
  await import('lmdb');
  await import('sodium-native');
}
