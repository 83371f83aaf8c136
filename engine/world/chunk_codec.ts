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

/** One encoding buffer per thread, reused: the result is copied out of it. */
const scratch = new Uint8Array(8 + 3 * (5 + LAYER_BYTES_MAX));

/** 32-bit views of the planes, cached per plane (a chunk row of 64 tiles is 16 aligned words). */
const word_views = new WeakMap<ArrayBufferLike, Uint32Array>();

function wordsOf(plane: Uint8Array): Uint32Array {
  let view = word_views.get(plane.buffer);
  if (!view) {
    view = new Uint32Array(plane.buffer, plane.byteOffset, plane.byteLength >>> 2);
    word_views.set(plane.buffer, view);
  }
  return view;
}

/** Encodes one chunk. Unrevealed tiles read as biome 255, height 0, block 0: nothing else leaks. */
export function encodeChunk(planes: ChunkPlanes, chunk_x: number, chunk_y: number): Uint8Array {
  const out = scratch;
  out[0] = 0x43; // C
  out[1] = 0x48; // H
  out[2] = 0x4e; // N
  out[3] = 0x4b; // K
  out[4] = CHUNK_FORMAT_VERSION;
  out[5] = chunk_x;
  out[6] = chunk_y;
  out[7] = 3;
  const origin = chunk_y * CHUNK_SIZE * WORLD_SIZE + chunk_x * CHUNK_SIZE;
  let at = 8;
  at = encodeLayer(out, at, LAYER_BIOME, planes.biome, BIOME_UNREVEALED, planes.revealed, origin);
  at = encodeLayer(out, at, LAYER_HEIGHT, planes.surface, 0, planes.revealed, origin);
  at = encodeLayer(out, at, LAYER_TOP_BLOCK, planes.top_block, 0, planes.revealed, origin);
  return out.slice(0, at);
}

/**
 * One layer: its id, its byte length, and the runs of its 4096 tiles. Fully revealed
 * rows are compared four tiles at a time (a word equal to the run value repeated
 * four times); fully hidden rows are one comparison. State lives in locals, which is
 * what makes this faster than deflate on real terrain (figures: bench/PROFILES.md).
 */
function encodeLayer(
  out: Uint8Array,
  start: number,
  layer: number,
  source: Uint8Array,
  hidden: number,
  revealed: Uint8Array,
  origin: number,
): number {
  const source_words = wordsOf(source);
  const revealed_words = wordsOf(revealed);
  out[start] = layer;
  let at = start + 5;
  let value = -1;
  let length = 0;
  let repeated = 0; // value * 0x01010101, the word of four tiles of the run's value
  for (let local_y = 0; local_y < CHUNK_SIZE; local_y++) {
    const row = origin + local_y * WORLD_SIZE;
    // A row's 64 revealed bits are two aligned words of the bitset.
    const bits_low = revealed_words[row >>> 5]!;
    const bits_high = revealed_words[(row >>> 5) + 1]!;
    const all_revealed = bits_low === 0xffffffff && bits_high === 0xffffffff;
    if (!all_revealed && bits_low === 0 && bits_high === 0) {
      if (value === hidden) length += CHUNK_SIZE;
      else {
        if (length > 0) at = writeVarint(out, writeVarint(out, at, length), value);
        value = hidden;
        repeated = Math.imul(value, 0x01010101) >>> 0;
        length = CHUNK_SIZE;
      }
      continue;
    }
    for (let tile = row, end = row + CHUNK_SIZE; tile < end; tile++) {
      // At each word boundary of a revealed row, four tiles equal to the run extend it at once.
      if (all_revealed && length >= 4 && (tile & 3) === 0 && source_words[tile >>> 2] === repeated) {
        length += 4;
        tile += 3;
        continue;
      }
      const next = all_revealed || (revealed[tile >> 3]! & (1 << (tile & 7))) !== 0 ? source[tile]! : hidden;
      if (next === value) {
        length++;
        continue;
      }
      if (length > 0) {
        // Most runs and values are under 128: one byte each, written inline.
        if (length < 0x80 && value < 0x80) {
          out[at++] = length;
          out[at++] = value;
        } else at = writeVarint(out, writeVarint(out, at, length), value);
      }
      value = next;
      repeated = Math.imul(value, 0x01010101) >>> 0;
      length = 1;
    }
  }
  at = writeVarint(out, writeVarint(out, at, length), value);
  const bytes = at - start - 5;
  out[start + 1] = bytes & 0xff;
  out[start + 2] = (bytes >>> 8) & 0xff;
  out[start + 3] = (bytes >>> 16) & 0xff;
  out[start + 4] = (bytes >>> 24) & 0xff;
  return at;
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
  if (bytes.length < 8 || bytes[0] !== 0x43 || bytes[1] !== 0x48 || bytes[2] !== 0x4e || bytes[3] !== 0x4b)
    throw new Error('not a CHNK binary');
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
