import { BIOME_UNREVEALED } from './materials.js';
import { CHUNK_SIZE, TILES_PER_CHUNK, WORLD_SIZE } from './geometry.js';

/**
 * The chunk binary of PROTOCOL.md section 5: "CHNK", version 1, chunk_x, chunk_y, a
 * layer count, then layers of (id u8, byte length u32 LE, runs). Runs cover the
 * 4096 tiles row-major, each an unsigned LEB128 pair (run length, value).
 */
export const CHUNK_FORMAT_VERSION = 1;
export const LAYER_BIOME = 1;
export const LAYER_HEIGHT = 2;
export const LAYER_TOP_BLOCK = 3;

/** The planes a chunk is drawn from; all may sit on shared memory. */
export interface ChunkPlanes {
  biome: Uint8Array;
  surface: Uint8Array;
  top_block: Uint8Array;
  revealed: Uint8Array;
}

/** Worst case per layer: 4096 runs of two 2-byte varints. */
const LAYER_BYTES_MAX = TILES_PER_CHUNK * 4;

function writeVarint(out: Uint8Array, at: number, value: number): number {
  while (value >= 0x80) {
    out[at++] = (value & 0x7f) | 0x80;
    value >>>= 7;
  }
  out[at++] = value;
  return at;
}

/** Encodes one chunk. Unrevealed tiles read as biome 255, height 0, block 0: nothing else leaks. */
export function encodeChunk(planes: ChunkPlanes, chunk_x: number, chunk_y: number, scratch = new Uint8Array(8 + 3 * (5 + LAYER_BYTES_MAX))): Uint8Array {
  const out = scratch;
  out[0] = 0x43; // C
  out[1] = 0x48; // H
  out[2] = 0x4e; // N
  out[3] = 0x4b; // K
  out[4] = CHUNK_FORMAT_VERSION;
  out[5] = chunk_x;
  out[6] = chunk_y;
  out[7] = 3;
  let at = 8;
  const origin = chunk_y * CHUNK_SIZE * WORLD_SIZE + chunk_x * CHUNK_SIZE;
  for (const layer of [LAYER_BIOME, LAYER_HEIGHT, LAYER_TOP_BLOCK]) {
    const source = layer === LAYER_BIOME ? planes.biome : layer === LAYER_HEIGHT ? planes.surface : planes.top_block;
    const hidden = layer === LAYER_BIOME ? BIOME_UNREVEALED : 0;
    out[at] = layer;
    const length_at = at + 1;
    at += 5;
    const runs_start = at;
    let run_value = -1;
    let run_length = 0;
    for (let local_y = 0; local_y < CHUNK_SIZE; local_y++) {
      const row = origin + local_y * WORLD_SIZE;
      for (let local_x = 0; local_x < CHUNK_SIZE; local_x++) {
        const index = row + local_x;
        const value = (planes.revealed[index >> 3]! & (1 << (index & 7))) !== 0 ? source[index]! : hidden;
        if (value === run_value) {
          run_length++;
          continue;
        }
        if (run_length > 0) {
          at = writeVarint(out, at, run_length);
          at = writeVarint(out, at, run_value);
        }
        run_value = value;
        run_length = 1;
      }
    }
    at = writeVarint(out, at, run_length);
    at = writeVarint(out, at, run_value);
    const length = at - runs_start;
    out[length_at] = length & 0xff;
    out[length_at + 1] = (length >>> 8) & 0xff;
    out[length_at + 2] = (length >>> 16) & 0xff;
    out[length_at + 3] = (length >>> 24) & 0xff;
  }
  return out.slice(0, at);
}

export interface DecodedChunk {
  version: number;
  chunk_x: number;
  chunk_y: number;
  /** layer id -> 4096 values, row-major. */
  layers: Map<number, Uint16Array>;
}

/** Decodes and checks a chunk binary; throws on anything malformed. */
export function decodeChunk(bytes: Uint8Array): DecodedChunk {
  if (bytes.length < 8 || bytes[0] !== 0x43 || bytes[1] !== 0x48 || bytes[2] !== 0x4e || bytes[3] !== 0x4b) throw new Error('not a CHNK binary');
  const layers = new Map<number, Uint16Array>();
  let at = 8;
  for (let layer = 0; layer < bytes[7]!; layer++) {
    if (at + 5 > bytes.length) throw new Error('truncated layer header');
    const id = bytes[at]!;
    const length = bytes[at + 1]! | (bytes[at + 2]! << 8) | (bytes[at + 3]! << 16) | (bytes[at + 4]! << 24);
    at += 5;
    const end = at + length;
    if (end > bytes.length) throw new Error('truncated layer');
    const values = new Uint16Array(TILES_PER_CHUNK);
    let filled = 0;
    const read = (): number => {
      let value = 0;
      let shift = 0;
      for (;;) {
        if (at >= end) throw new Error('truncated varint');
        const byte = bytes[at++]!;
        value += (byte & 0x7f) * 2 ** shift;
        if (byte < 0x80) return value;
        shift += 7;
      }
    };
    while (at < end) {
      const run = read();
      const value = read();
      if (run === 0 || filled + run > TILES_PER_CHUNK) throw new Error('run lengths do not sum to 4096');
      values.fill(value, filled, filled + run);
      filled += run;
    }
    if (filled !== TILES_PER_CHUNK) throw new Error('run lengths do not sum to 4096');
    layers.set(id, values);
  }
  return { version: bytes[4]!, chunk_x: bytes[5]!, chunk_y: bytes[6]!, layers };
}
