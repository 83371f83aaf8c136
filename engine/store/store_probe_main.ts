import { join } from 'node:path';
import { DATA_FILE } from './lmdb_store.js';
import { lmdbFileProblem, readWholeStore, type ProbeOutcome } from './store_probe.js';

/**
 * `node store_probe_main.js STORE_DIR`: checks a store in a process of its own and
 * prints one JSON line, {ok: true, summary} or {ok: false, file, reason}. LMDB maps
 * the file, so damage it trips over kills this process by a signal, not the caller.
 */
async function probe(store_dir: string): Promise<ProbeOutcome> {
  const problem = lmdbFileProblem(store_dir);
  if (problem) return { ok: false, ...problem };
  try {
    return { ok: true, summary: await readWholeStore(store_dir) };
  } catch (error) {
    return {
      ok: false,
      file: join(store_dir, DATA_FILE),
      reason: `cannot be read: ${error instanceof Error ? error.message : String(error)}`,
    };
  }
}

const store_dir = process.argv[2];
if (!store_dir) {
  console.error('usage: store_probe_main.js STORE_DIR');
  process.exit(2);
}
console.log(JSON.stringify(await probe(store_dir)));
