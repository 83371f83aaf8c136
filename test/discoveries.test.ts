import { describe, expect, it } from 'vitest';
import { Discoveries, forEachSetTile } from '../engine/world/discoveries.js';
import { TILE_COUNT, tileIndex } from '../engine/world/geometry.js';

function setTiles(plane: Uint8Array): number[] {
  const tiles: number[] = [];
  forEachSetTile(plane, (index) => tiles.push(index));
  return tiles;
}

describe('the discoveries of a world', () => {
  it('keeps who revealed a tile and when, per tile, across chunk edges and the corners of the plane', () => {
    const discoveries = new Discoveries();
    const tiles = [
      0,
      tileIndex(63, 0),
      tileIndex(64, 0),
      tileIndex(0, 64),
      tileIndex(2047, 2047),
      tileIndex(1000, 1500),
    ];
    tiles.forEach((index, n) => discoveries.record(index, n + 1, 1_700_000_000 + n));
    tiles.forEach((index, n) => {
      expect([discoveries.discovererOf(index), discoveries.revealedAtSecondsOf(index)]).toEqual([
        n + 1,
        1_700_000_000 + n,
      ]);
    });
    // Neighbours in the same chunk, in another chunk, and far away were never recorded.
    for (const index of [
      1,
      tileIndex(62, 0),
      tileIndex(65, 0),
      tileIndex(0, 65),
      tileIndex(2046, 2047),
      TILE_COUNT / 2,
    ])
      expect([discoveries.discovererOf(index), discoveries.revealedAtSecondsOf(index)]).toEqual([0, 0]);
  });
});

describe('forEachSetTile', () => {
  it('visits every set bit in ascending order, 8 tiles a byte with bit 0 first', () => {
    const plane = new Uint8Array(16);
    plane[0] = 0b1000_0001;
    plane[5] = 0b0001_0000;
    plane[15] = 0b1000_0000;
    expect(setTiles(plane)).toEqual([0, 7, 44, 127]);
  });

  it('reads a plane that does not start on a word boundary, or ends mid-word, the same way', () => {
    const backing = new Uint8Array(23);
    const plane = backing.subarray(1, 23);
    for (const byte of [0, 3, 4, 17, 21]) plane[byte] = 0b0100_0010;
    expect(setTiles(plane)).toEqual([1, 6, 25, 30, 33, 38, 137, 142, 169, 174]);
    expect(setTiles(plane.slice())).toEqual(setTiles(plane));
  });
});
