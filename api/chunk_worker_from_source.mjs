// The chunk pool's thread module under the test runner: api/chunk_cache.ts picks this file
// only when it runs as TypeScript, so a test always runs the codec as edited, never a stale
// build. Node 20 does not hand `--import` loader hooks on to worker threads, so the thread
// registers tsx (a development dependency) itself before it loads the TypeScript source.
import { register } from 'tsx/esm/api';

register();
const { default: buildChunks } = await import('./chunk_worker.ts');
export default buildChunks;
