import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { apAt, apAvailableAtMs, spendAp } from '../engine/world/ap.js';
import { decodeChunk, encodeChunk, LAYER_BIOME, LAYER_HEIGHT, LAYER_TOP_BLOCK } from '../engine/world/chunk_codec.js';
import { TILE_COUNT, WORLD_SIZE, tileIndex } from '../engine/world/geometry.js';
import { DEFAULT_PARAMS } from '../engine/params.js';
import { generateTerrain, naturalMaterial } from '../engine/world/terrain.js';
import type { WorldAgent } from '../engine/world/world_state.js';

const digest = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

describe('terrain', () => {
  const terrain = generateTerrain('terrain-test');

  it('is the same world for the same seed, hash for hash, and another for another seed', () => {
    const again = generateTerrain('terrain-test');
    expect(digest(again.biome)).toBe(digest(terrain.biome));
    expect(digest(again.base_height)).toBe(digest(terrain.base_height));
    expect(digest(generateTerrain('another-seed').biome)).not.toBe(digest(terrain.biome));
  });

  it('has all seven biomes, in coherent regions rather than noise per tile', () => {
    const counts = new Array(7).fill(0);
    let same_as_right = 0;
    for (let y = 0; y < WORLD_SIZE; y++) {
      for (let x = 0; x < WORLD_SIZE; x++) {
        const biome = terrain.biome[tileIndex(x, y)]!;
        counts[biome]++;
        if (x + 1 < WORLD_SIZE && terrain.biome[tileIndex(x + 1, y)] === biome) same_as_right++;
      }
    }
    for (const count of counts) expect(count / TILE_COUNT).toBeGreaterThan(0.02);
    expect(same_as_right / TILE_COUNT).toBeGreaterThan(0.9);
  });

  it('layers water at z 19 over a floor at z 17, and materials by depth', () => {
    const water = (() => {
      for (let i = 0; i < TILE_COUNT; i++) if (terrain.biome[i] === 5) return i;
      throw new Error('no water');
    })();
    const [wx, wy] = [water % WORLD_SIZE, Math.floor(water / WORLD_SIZE)];
    expect([19, 18, 17].map((z) => naturalMaterial(terrain, wx, wy, z))).toEqual([10, 10, 2]);
    expect(naturalMaterial(terrain, wx, wy, 20)).toBe(0);
    expect(naturalMaterial(terrain, wx, wy, 3)).toBe(5); // obsidian deep down everywhere
  });
});

describe('the chunk codec', () => {
  const planes = fc.record({
    // Few distinct values, so runs of every length appear.
    biome: fc.uint8Array({ minLength: 64 * 64, maxLength: 64 * 64, max: 6 }),
    surface: fc.uint8Array({ minLength: 64 * 64, maxLength: 64 * 64, min: 18, max: 21 }),
    top_block: fc.uint8Array({ minLength: 64 * 64, maxLength: 64 * 64, max: 2 }),
    revealed: fc.uint8Array({ minLength: (64 * 64) / 8, maxLength: (64 * 64) / 8 }),
  });

  /** Lays 64 x 64 test planes into chunk (cx, cy) of full-size planes. */
  function fullPlanes(
    small: { biome: Uint8Array; surface: Uint8Array; top_block: Uint8Array; revealed: Uint8Array },
    cx: number,
    cy: number,
  ) {
    const full = {
      biome: new Uint8Array(TILE_COUNT),
      surface: new Uint8Array(TILE_COUNT),
      top_block: new Uint8Array(TILE_COUNT),
      revealed: new Uint8Array(TILE_COUNT / 8),
    };
    for (let local = 0; local < 4096; local++) {
      const index = tileIndex(cx * 64 + (local % 64), cy * 64 + Math.floor(local / 64));
      full.biome[index] = small.biome[local]!;
      full.surface[index] = small.surface[local]!;
      full.top_block[index] = small.top_block[local]!;
      if (small.revealed[local >> 3]! & (1 << (local & 7))) full.revealed[index >> 3]! |= 1 << (index & 7);
    }
    return full;
  }

  it('round-trips any chunk, with run lengths summing to 4096 and unrevealed tiles hidden', () => {
    fc.assert(
      fc.property(planes, fc.integer({ min: 0, max: 31 }), fc.integer({ min: 0, max: 31 }), (small, cx, cy) => {
        const decoded = decodeChunk(encodeChunk(fullPlanes(small, cx, cy), cx, cy));
        expect([decoded.version, decoded.chunk_x, decoded.chunk_y]).toEqual([1, cx, cy]);
        // What each layer must read, tile by tile, compared whole (a failure still names the first tile that differs).
        const revealed = (local: number) => (small.revealed[local >> 3]! & (1 << (local & 7))) !== 0;
        const expected = (plane: Uint8Array, hidden: number) =>
          Uint8Array.from(plane, (value, local) => (revealed(local) ? value : hidden));
        for (const [layer, plane, hidden] of [
          [LAYER_BIOME, small.biome, 255],
          [LAYER_HEIGHT, small.surface, 0],
          [LAYER_TOP_BLOCK, small.top_block, 0],
        ] as const) {
          const got = decoded.layers.get(layer)!;
          const want = expected(plane, hidden);
          const first_difference = want.findIndex((value, local) => got[local] !== value);
          expect(first_difference, `layer ${layer} differs first at tile ${first_difference}`).toBe(-1);
          expect(got.length).toBe(4096);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('writes the header of the chunk binary (docs/world.md) and refuses truncated input', () => {
    const bytes = encodeChunk(
      {
        biome: new Uint8Array(TILE_COUNT),
        surface: new Uint8Array(TILE_COUNT),
        top_block: new Uint8Array(TILE_COUNT),
        revealed: new Uint8Array(TILE_COUNT / 8),
      },
      3,
      4,
    );
    expect(Array.from(bytes.slice(0, 8))).toEqual([0x43, 0x48, 0x4e, 0x4b, 1, 3, 4, 3]);
    // One run per layer, 4 bytes long: 4096 as LEB128 is 0x80 0x20, and 255 is 0xff 0x01.
    expect(Array.from(bytes.slice(8, 17))).toEqual([1, 4, 0, 0, 0, 0x80, 0x20, 0xff, 0x01]);
    expect(() => decodeChunk(bytes.slice(0, bytes.length - 1))).toThrow();
  });
});

describe('AP accrual', () => {
  const params = { ...DEFAULT_PARAMS, ap_cap: 10, ap_interval_seconds: 90, ap_per_interval: 1 };
  const agent = (): WorldAgent => ({
    agent_id: 'ag_0000000000000000',
    ordinal: 0,
    x: 0,
    y: 0,
    ap: 2,
    ap_as_of_ms: 0,
    inventory: {},
    standing: 0,
    explore_day: 0,
    explore_bonus_tiles: 0,
  });

  it('adds one AP per full interval from the action time, up to the cap', () => {
    const a = agent();
    expect([0, 89_999, 90_000, 179_999, 180_000, 10_000_000].map((t) => apAt(a, t, params))).toEqual([
      2, 2, 3, 3, 4, 10,
    ]);
  });

  it('keeps the running part of an interval when AP is spent', () => {
    const a = agent();
    spendAp(a, 3, 135_000, params); // 3 held at 135 s, the next arrives at 180 s
    expect(apAt(a, 135_000, params)).toBe(0);
    expect(apAt(a, 179_999, params)).toBe(0);
    expect(apAt(a, 180_000, params)).toBe(1);
    expect(apAvailableAtMs(a, 2, 135_000, params)).toBe(270_000);
  });

  it('restarts accrual from the moment of spending when the cap was reached', () => {
    const a = agent();
    spendAp(a, 1, 10_000_000, params);
    expect(apAt(a, 10_000_000, params)).toBe(9);
    expect(apAt(a, 10_000_000 + 89_999, params)).toBe(9);
    expect(apAt(a, 10_000_000 + 90_000, params)).toBe(10);
  });
});
