// The native-free door (engine/pure.ts): index.js would load lmdb and libsodium into every pool thread.
import { sha256Hex, encodeChunk, type ChunkPlanes } from '../engine/pure.js';

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
