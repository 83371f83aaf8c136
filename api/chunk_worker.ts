// Not the engine's front door: that loads the store's native addons (lmdb, libsodium) into every
// worker thread, and a thread ended while one registered took the whole process down (napi_throw).
import { sha256Hex } from '../engine/canonical.js';
import { encodeChunk, type ChunkPlanes } from '../engine/world/chunk_codec.js';

export interface ChunkTask {
  planes: {
    biome: SharedArrayBuffer;
    surface: SharedArrayBuffer;
    top_block: SharedArrayBuffer;
    revealed: SharedArrayBuffer;
  };
  chunks: number[];
}

export interface BuiltChunk {
  chunk: number;
  body: Uint8Array;
  etag: string;
}

/** Piscina worker: encodes and hashes a batch of chunks straight from the shared plane. */
export default function buildChunks(task: ChunkTask): BuiltChunk[] {
  const planes: ChunkPlanes = {
    biome: new Uint8Array(task.planes.biome),
    surface: new Uint8Array(task.planes.surface),
    top_block: new Uint8Array(task.planes.top_block),
    revealed: new Uint8Array(task.planes.revealed),
  };
  return task.chunks.map((chunk) => builtChunk(planes, chunk));
}

export function builtChunk(planes: ChunkPlanes, chunk: number): BuiltChunk {
  const body = encodeChunk(planes, chunk % 32, Math.floor(chunk / 32));
  return { chunk, body, etag: `"${sha256Hex(body)}"` };
}
