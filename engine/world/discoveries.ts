import { CHUNK_COUNT, CHUNK_SIZE, chunkIndexOfTile, TILES_PER_CHUNK, WORLD_SIZE } from './geometry.js';

/**
 * Who first revealed each tile, and when. Kept per chunk, a chunk's two arrays made on its
 * first reveal: members explore a few chunks of the 1,024, so a world carries kilobytes here
 * rather than two 16 MB planes made, copied and collected with every restore.
 */
export class Discoveries {
  /** Per chunk: discoverer's ordinal + 1 for each of its tiles (0 where none), or undefined before its first reveal. */
  private readonly by_chunk: (Uint32Array | undefined)[] = new Array(CHUNK_COUNT);
  /** Per chunk: when each tile was revealed, in seconds since the epoch. */
  private readonly at_s_chunk: (Uint32Array | undefined)[] = new Array(CHUNK_COUNT);

  /** Records `discoverer` (an ordinal + 1) as having revealed tile `index` at `at_s`. */
  record(index: number, discoverer: number, at_s: number): void {
    const chunk = chunkOf(index);
    let by = this.by_chunk[chunk];
    let at = this.at_s_chunk[chunk];
    if (!by || !at) {
      by = this.by_chunk[chunk] = new Uint32Array(TILES_PER_CHUNK);
      at = this.at_s_chunk[chunk] = new Uint32Array(TILES_PER_CHUNK);
    }
    const offset = offsetInChunk(index);
    by[offset] = discoverer;
    at[offset] = at_s;
  }

  /** The discoverer's ordinal + 1, or 0 for a tile nobody revealed. */
  discovererOf(index: number): number {
    return this.by_chunk[chunkOf(index)]?.[offsetInChunk(index)] ?? 0;
  }

  /** When the tile was revealed, in seconds since the epoch; 0 for a tile never recorded. */
  revealedAtSecondsOf(index: number): number {
    return this.at_s_chunk[chunkOf(index)]?.[offsetInChunk(index)] ?? 0;
  }
}

function chunkOf(index: number): number {
  const x = index % WORLD_SIZE;
  return chunkIndexOfTile(x, (index - x) / WORLD_SIZE);
}

function offsetInChunk(index: number): number {
  const x = index % WORLD_SIZE;
  const y = (index - x) / WORLD_SIZE;
  return (y % CHUNK_SIZE) * CHUNK_SIZE + (x % CHUNK_SIZE);
}

const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;

/**
 * Calls `visit` with the index of every set bit of a one-bit-per-tile plane, in ascending
 * order. Reads 32 tiles at a time: the plane is mostly zero, and a snapshot scans all of it.
 */
export function forEachSetTile(plane: Uint8Array, visit: (index: number) => void): void {
  const whole_words = plane.byteLength >> 2;
  // Word-aligned planes (every plane here is, on its own buffer) are read as words; in
  // little-endian byte order puts tile 8 * byte + bit at bit 8 * (byte % 4) + bit of the word.
  const words =
    LITTLE_ENDIAN && plane.byteOffset % 4 === 0
      ? new Uint32Array(plane.buffer, plane.byteOffset, whole_words)
      : undefined;
  for (let word_index = 0; word_index < whole_words; word_index++) {
    const word = words
      ? words[word_index]!
      : (plane[word_index * 4]! |
          (plane[word_index * 4 + 1]! << 8) |
          (plane[word_index * 4 + 2]! << 16) |
          (plane[word_index * 4 + 3]! << 24)) >>>
        0;
    if (word === 0) continue;
    for (let bit = 0; bit < 32; bit++) if ((word >>> bit) & 1) visit(word_index * 32 + bit);
  }
  for (let byte = whole_words * 4; byte < plane.byteLength; byte++)
    for (let bit = 0; bit < 8; bit++) if ((plane[byte]! >> bit) & 1) visit(byte * 8 + bit);
}
