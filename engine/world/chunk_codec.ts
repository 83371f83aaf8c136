import { BIOME_UNREVEALED } from './materials.js';
import { CHUNK_SIZE, TILES_PER_CHUNK, WORLD_SIZE } from './geometry.js';

/**
 * The chunk binary of docs/world.md#the-chunk-binary: "CHNK", version 1, chunk_x, chunk_y, a
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

/**
 * The scan reads four tiles as one 32-bit word and finds where a run ends from the
 * lowest differing byte, which is the first tile only on a little-endian host (x64 and
 * arm64, all Node runs on in practice). A big-endian host would encode wrong bytes, so
 * it refuses to load instead.
 */
if (new Uint8Array(Uint32Array.of(1).buffer)[0] !== 1) throw new Error('the chunk encoder needs a little-endian host');

/**
 * 32-bit views of the planes, cached per plane (a chunk row of 64 tiles is 16 aligned
 * words). Keyed by the plane, not its buffer: two planes on one buffer have two views.
 */
const word_views = new WeakMap<Uint8Array, Int32Array>();

function wordsOf(plane: Uint8Array): Int32Array {
  let view = word_views.get(plane);
  if (!view) {
    // Signed, so that a word stays a small integer in the optimised scan (no doubles).
    view = new Int32Array(plane.buffer, plane.byteOffset, plane.byteLength >>> 2);
    word_views.set(plane, view);
  }
  return view;
}

/** For each 4 revealed bits of a word of tiles, the byte mask that keeps the revealed tiles' bytes. */
const REVEALED_BYTES = Int32Array.from({ length: 16 }, (_, bits) => {
  let mask = 0;
  for (let tile = 0; tile < 4; tile++) if (bits & (1 << tile)) mask |= 0xff << (8 * tile);
  return mask;
});

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
  const revealed = wordsOf(planes.revealed);
  const biome = wordsOf(planes.biome);
  const surface = wordsOf(planes.surface);
  const top_block = wordsOf(planes.top_block);
  touchRows(biome, surface, top_block, revealed, origin);
  let at = 8;
  at = encodeLayer(out, at, LAYER_BIOME, biome, BIOME_UNREVEALED, revealed, origin);
  at = encodeLayer(out, at, LAYER_HEIGHT, surface, 0, revealed, origin);
  at = encodeLayer(out, at, LAYER_TOP_BLOCK, top_block, 0, revealed, origin);
  return out.slice(0, at);
}

/** Kept so that the loads of touchRows are not optimised away. */
let touched = 0;

/**
 * Reads one word of each of the chunk's 64 rows in every plane before the scan. The rows
 * are 2 KB apart, so each is a cache line of its own that the hardware prefetcher does
 * not guess; read in the scan they miss one after another, read here (no load depends on
 * another) they are fetched together.
 */
function touchRows(
  biome: Int32Array,
  surface: Int32Array,
  top_block: Int32Array,
  revealed: Int32Array,
  origin: number,
) {
  let sum = 0;
  for (let row = origin; row < origin + CHUNK_SIZE * WORLD_SIZE; row += WORLD_SIZE) {
    const word = row >>> 2;
    sum ^= biome[word]! ^ surface[word]! ^ top_block[word]! ^ revealed[row >>> 5]!;
  }
  touched ^= sum;
}

/** One run: most runs and values are under 128, one byte each, written inline. */
function writeRun(out: Uint8Array, at: number, length: number, value: number): number {
  if (length < 0x80 && value < 0x80) {
    out[at] = length;
    out[at + 1] = value;
    return at + 2;
  }
  return writeVarint(out, writeVarint(out, at, length), value);
}

/**
 * One layer: its id, its byte length, and the runs of its 4096 tiles. The tiles are
 * read four at a time as a word, hidden tiles' bytes replaced with the hidden value
 * (a mask from the word's four revealed bits), so revealed, hidden and mixed rows take
 * the one loop. A word that repeats the run's value extends the run by four. A word
 * where runs end is taken tile by tile without a branch when every pair it can write is
 * one byte each (heights and biomes under 128: nearly all), else by its lowest differing
 * bytes. No array but the output; all state in locals.
 */
function encodeLayer(
  out: Uint8Array,
  start: number,
  layer: number,
  source: Int32Array,
  hidden: number,
  revealed: Int32Array,
  origin: number,
): number {
  out[start] = layer;
  let at = start + 5;
  const hidden_word = Math.imul(hidden, 0x01010101);
  // The run starts as the first tile's value, with no tile counted yet: the scan counts it.
  let value = revealed[origin >>> 5]! & 1 ? source[origin >>> 2]! & 0xff : hidden;
  let repeated = Math.imul(value, 0x01010101); // the word of four tiles of the run's value
  let length = 0;
  for (let local_y = 0; local_y < CHUNK_SIZE; local_y++) {
    const row = origin + local_y * WORLD_SIZE;
    // A row's 64 revealed bits are two aligned words of the bitset, its 64 tiles 16 words of the plane.
    const bits_low = revealed[row >>> 5]!;
    const bits_high = revealed[(row >>> 5) + 1]!;
    if ((bits_low | bits_high) === 0) {
      if (value !== hidden) {
        at = writeRun(out, at, length, value);
        value = hidden;
        repeated = hidden_word;
        length = 0;
      }
      length += CHUNK_SIZE;
      continue;
    }
    const all_revealed = (bits_low & bits_high) === -1;
    for (let word_at = row >>> 2, end = word_at + CHUNK_SIZE / 4; word_at < end; word_at++) {
      let word = source[word_at]!;
      if (!all_revealed) {
        // Bit i of the bitset word is tile i: the 4 bits of this word of tiles.
        const shift = (word_at & 7) << 2;
        const keep = REVEALED_BYTES[((word_at & 8) === 0 ? bits_low >>> shift : bits_high >>> shift) & 15]!;
        word = (word & keep) | (hidden_word & ~keep);
      }
      let diff = word ^ repeated;
      if (diff === 0) {
        length += 4;
        continue;
      }
      if ((word & 0x80808080) === 0 && (value | length) < 0x7c) {
        // Every run this word can end fits one byte each of length and value: tile by tile
        // without a branch (where runs end is what a branch would mispredict). Each tile
        // writes the pair of the run before it and keeps it (moves at on) only if it differs.
        for (let shift = 0; shift < 32; shift += 8) {
          const tile = (word >>> shift) & 0xff;
          const differs = ((tile ^ value) + 0xff) >>> 8; // 1 where the tile differs, without a branch
          out[at] = length;
          out[at + 1] = value;
          at += differs << 1;
          length = (length & (differs - 1)) + 1;
          value = tile;
        }
        repeated = Math.imul(value, 0x01010101);
        continue;
      }
      // Runs end inside this word: each lowest differing byte ends one and starts the next.
      let counted = 0;
      for (;;) {
        const same = (31 - Math.clz32(diff & -diff)) >>> 3;
        length += same;
        counted += same;
        at = writeRun(out, at, length, value);
        value = (word >>> (counted << 3)) & 0xff;
        repeated = Math.imul(value, 0x01010101);
        diff = (word ^ repeated) >>> (counted << 3);
        if (diff === 0) {
          length = 4 - counted;
          break;
        }
        length = 0;
      }
    }
  }
  at = writeRun(out, at, length, value);
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
