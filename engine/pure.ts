/**
 * The part of the engine's front door that loads no native addon, for worker threads:
 * index.ts also exports the stores, which load lmdb and libsodium, and a pool thread ended
 * while one of those registered took the whole process down (napi_throw). Everything here
 * is exported by index.ts too.
 */
export { sha256Hex } from './canonical.js';
export { encodeChunk, type ChunkPlanes } from './world/chunk_codec.js';
