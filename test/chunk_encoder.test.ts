import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { encodeChunk, type ChunkPlanes } from '../engine/world/chunk_codec.js';
import { TILE_COUNT, WORLD_SIZE } from '../engine/world/geometry.js';
import { chunkPlanes, createWorld } from '../engine/world/world_state.js';

/**
 * The chunk encoder scans tiles four at a time with masks (engine/world/chunk_codec.ts);
 * this is docs/world.md#the-chunk-binary written the obvious way, tile by tile, against which its
 * bytes are held equal. The format is fixed: not one byte may change.
 */
function referenceEncode(planes: ChunkPlanes, chunk_x: number, chunk_y: number): Uint8Array {
  const out: number[] = [0x43, 0x48, 0x4e, 0x4b, 1, chunk_x, chunk_y, 3];
  const varint = (bytes: number[], value: number) => {
    while (value >= 0x80) {
      bytes.push((value & 0x7f) | 0x80);
      value >>>= 7;
    }
    bytes.push(value);
  };
  const layers: [number, Uint8Array, number][] = [
    [1, planes.biome, 255],
    [2, planes.surface, 0],
    [3, planes.top_block, 0],
  ];
  for (const [id, plane, hidden] of layers) {
    const values: number[] = [];
    for (let local = 0; local < 4096; local++) {
      const tile = (chunk_y * 64 + Math.floor(local / 64)) * WORLD_SIZE + chunk_x * 64 + (local % 64);
      const revealed = (planes.revealed[tile >> 3]! & (1 << (tile & 7))) !== 0;
      values.push(revealed ? plane[tile]! : hidden);
    }
    const runs: number[] = [];
    for (let from = 0; from < 4096; ) {
      let to = from + 1;
      while (to < 4096 && values[to] === values[from]) to++;
      varint(runs, to - from);
      varint(runs, values[from]!);
      from = to;
    }
    out.push(id, runs.length & 0xff, (runs.length >>> 8) & 0xff, (runs.length >>> 16) & 0xff, runs.length >>> 24);
    out.push(...runs);
  }
  return Uint8Array.from(out);
}

/** A small deterministic generator, so a failing case is its seed. */
function generator(seed: number): (below: number) => number {
  let state = seed >>> 0;
  return (below) => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (((t ^ (t >>> 14)) >>> 0) % below) >>> 0;
  };
}

const RUN_STYLES = ['single tiles', 'short', 'medium', 'long'] as const;
const VALUE_STYLES = ['two', 'few', 'any byte', 'high bytes', 'hidden value'] as const;
const REVEAL_STYLES = ['all', 'none', 'random bits', 'rows', 'words', 'runs'] as const;

interface Case {
  seed: number;
  chunk_x: number;
  chunk_y: number;
  runs: (typeof RUN_STYLES)[number];
  values: (typeof VALUE_STYLES)[number];
  reveal: (typeof REVEAL_STYLES)[number];
}

/** Full-size planes, their other chunks left with whatever the last case wrote: a chunk must read only its own tiles. */
const planes: ChunkPlanes = {
  biome: new Uint8Array(TILE_COUNT),
  surface: new Uint8Array(TILE_COUNT),
  top_block: new Uint8Array(TILE_COUNT),
  revealed: new Uint8Array(TILE_COUNT / 8),
};

/** Fills a case's chunk and its surroundings (the chunks beside it, and its rows' bitset neighbours). */
function fill({ seed, chunk_x, chunk_y, runs, values, reveal }: Case): void {
  const random = generator(seed);
  const run_length = () =>
    runs === 'single tiles'
      ? 1
      : runs === 'short'
        ? 1 + random(6)
        : runs === 'medium'
          ? 1 + random(80)
          : 1 + random(700);
  const value = (hidden: number) =>
    values === 'two'
      ? random(2)
      : values === 'few'
        ? random(4) * 60
        : values === 'any byte'
          ? random(256)
          : values === 'high bytes'
            ? 120 + random(136)
            : random(3) === 0
              ? hidden
              : random(3);
  const x0 = Math.max(0, chunk_x - 1) * 64;
  const x1 = Math.min(32, chunk_x + 2) * 64;
  const y0 = Math.max(0, chunk_y - 1) * 64;
  const y1 = Math.min(32, chunk_y + 2) * 64;
  for (const [plane, hidden] of [
    [planes.biome, 255],
    [planes.surface, 0],
    [planes.top_block, 0],
  ] as const) {
    let left = 0;
    let current = 0;
    for (let y = y0; y < y1; y++)
      for (let x = x0; x < x1; x++) {
        if (left-- <= 0) [left, current] = [run_length() - 1, value(hidden)];
        plane[y * WORLD_SIZE + x] = current;
      }
  }
  let left = 0;
  let on = false;
  for (let y = y0; y < y1; y++) {
    const row_style = random(3);
    for (let x = x0; x < x1; x += 8) {
      const at = (y * WORLD_SIZE + x) >> 3;
      if (reveal === 'all') planes.revealed[at] = 0xff;
      else if (reveal === 'none') planes.revealed[at] = 0;
      else if (reveal === 'random bits') planes.revealed[at] = random(256);
      else if (reveal === 'rows') planes.revealed[at] = row_style === 0 ? 0 : row_style === 1 ? 0xff : random(256);
      else if (reveal === 'words') planes.revealed[at] = [0, 0x0f, 0xf0, 0xff][random(4)]!;
      else {
        let byte = 0;
        for (let bit = 0; bit < 8; bit++) {
          if (left-- <= 0) [left, on] = [random(150), !on];
          if (on) byte |= 1 << bit;
        }
        planes.revealed[at] = byte;
      }
    }
  }
}

const cases = fc.record({
  seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
  // The edges (0 and 31) half of the time.
  chunk_x: fc.oneof(fc.constantFrom(0, 31), fc.integer({ min: 0, max: 31 })),
  chunk_y: fc.oneof(fc.constantFrom(0, 31), fc.integer({ min: 0, max: 31 })),
  runs: fc.constantFrom(...RUN_STYLES),
  values: fc.constantFrom(...VALUE_STYLES),
  reveal: fc.constantFrom(...REVEAL_STYLES),
});

/**
 * Where two encodings first differ (-1: nowhere, the same length). Compared as bytes, not
 * with toEqual: a deep equality walks and formats every element, which made this file 20 times slower.
 */
function firstDifference(actual: Uint8Array, expected: Uint8Array): number {
  if (Buffer.from(actual).equals(Buffer.from(expected))) return -1;
  const shorter = Math.min(actual.length, expected.length);
  for (let at = 0; at < shorter; at++) if (actual[at] !== expected[at]) return at;
  return shorter;
}

describe('the chunk encoder', () => {
  it('writes exactly the bytes of the tile-by-tile reference, over random chunks and revealed bitsets', () => {
    fc.assert(
      fc.property(cases, (c) => {
        fill(c);
        expect(
          firstDifference(encodeChunk(planes, c.chunk_x, c.chunk_y), referenceEncode(planes, c.chunk_x, c.chunk_y)),
        ).toBe(-1);
      }),
      { numRuns: 400 },
    );
  });

  it('writes exactly the reference bytes for every chunk of a real world, fully revealed, unrevealed and half revealed', () => {
    const world = createWorld('chunk-encoder-test');
    const real = chunkPlanes(world);
    const check = () => {
      for (let chunk = 0; chunk < 1024; chunk += 7) {
        const [cx, cy] = [chunk % 32, Math.floor(chunk / 32)];
        expect(firstDifference(encodeChunk(real, cx, cy), referenceEncode(real, cx, cy)), `chunk ${cx},${cy}`).toBe(-1);
      }
      for (const [cx, cy] of [
        [0, 0],
        [31, 0],
        [0, 31],
        [31, 31],
      ] as const)
        expect(firstDifference(encodeChunk(real, cx, cy), referenceEncode(real, cx, cy)), `chunk ${cx},${cy}`).toBe(-1);
    };
    world.revealed.fill(0);
    check();
    world.revealed.fill(0xff);
    check();
    // A checkerboard of revealed words, the odd rows shifted: every boundary between a revealed and a hidden tile.
    world.revealed.forEach((_, at) => (world.revealed[at] = (at >> 8) & 1 ? 0x5a : 0xa5));
    check();
  });
});
