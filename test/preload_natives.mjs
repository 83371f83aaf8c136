// Loaded by every vitest worker before vitest's own code (vitest.config.ts, execArgv --import).
// The native addons register here, at process start, with nothing else loading: a worker that
// first met lmdb in the middle of a run, while other modules were being imported, now and then
// died in lmdb's napi registration ("FATAL ERROR: Error::ThrowAsJavaScriptException napi_throw").
import 'lmdb';
import 'sodium-native';
