import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeBundle,
  encodeBundle,
  ENTRIES_LEVEL,
  formatTileIndex,
  parseTilePath,
  tileExists,
  tileHashes,
  tilePath,
  treeBundles,
  treeTiles,
  type TileId,
} from '../client/tlog/tile_path.js';

const summary = (tiles: TileId[]) => {
  const rows = new Map<string, number>();
  for (const { level, width } of tiles) {
    const key = `${level}:${width}`;
    rows.set(key, (rows.get(key) ?? 0) + 1);
  }
  return Object.fromEntries(rows);
};

describe('tile paths (C2SP tlog-tiles)', () => {
  it("encodes the index in three-digit groups, all but the last prefixed with x: the spec's 1234067 is x001/x234/067", () => {
    expect(formatTileIndex(1234067)).toBe('x001/x234/067');
    expect(formatTileIndex(0)).toBe('000');
    expect(formatTileIndex(999)).toBe('999');
    expect(formatTileIndex(1000)).toBe('x001/000');
    expect(tilePath({ level: 0, index: 1234067, width: 256 })).toBe('tile/0/x001/x234/067');
    expect(tilePath({ level: 2, index: 5, width: 17 })).toBe('tile/2/005.p/17');
    expect(tilePath({ level: ENTRIES_LEVEL, index: 1234067, width: 256 })).toBe('tile/entries/x001/x234/067');
    expect(tilePath({ level: ENTRIES_LEVEL, index: 0, width: 1 })).toBe('tile/entries/000.p/1');
  });

  it('parses the paths it formats, for every level, any index and every width', () => {
    const tile = fc.record({
      level: fc.integer({ min: -1, max: 63 }),
      index: fc.integer({ min: 0, max: Number.MAX_SAFE_INTEGER }),
      width: fc.integer({ min: 1, max: 256 }),
    });
    fc.assert(
      fc.property(tile, (t) => {
        expect(parseTilePath(tilePath(t))).toEqual(t);
      }),
    );
    expect(parseTilePath('tile/63/x001/x234/067.p/255')).toEqual({ level: 63, index: 1234067, width: 255 });
    expect(parseTilePath('tile/entries/x001/x234/067')).toEqual({ level: ENTRIES_LEVEL, index: 1234067, width: 256 });
  });

  it('refuses every other spelling: leading zeros, levels beyond 63, widths outside 1..255, stray parts', () => {
    const refused = [
      'tile/00/000', // a level with a leading zero
      'tile/01/000',
      'tile/64/000', // beyond level 63
      'tile/-1/000',
      'tile/x/000',
      'tile/0/x000/001', // a leading x000 group
      'tile/0/x001/x000/x000/x000/x000/x000/000', // beyond 2^53
      'tile/0/x009/x007/x199/x254/x740/992',
      'tile/0/1', // groups are three digits
      'tile/0/0001',
      'tile/0/x001', // the last group has no x
      'tile/0/001/x002',
      'tile/0/000.p/0', // widths 1..255
      'tile/0/000.p/256',
      'tile/0/000.p/01',
      'tile/0/000.p/',
      'tile/0/000.p',
      'tile/0/000/',
      'tile/0/000.p/5/',
      'tile/0/000.q/5',
      'tile/0/',
      'tile/entries/',
      'tile/entries',
      'tiles/0/000',
      '/tile/0/000',
      'tile/0/+01',
      'tile/0/0x1',
      'tile/0/ 01',
      'tile/1e1/000',
      'tile/entries/000.p/1.5',
    ];
    for (const path of refused) expect(parseTilePath(path), path).toBeUndefined();
  });

  it("lists the tiles of a tree as the spec's examples: size 70,000 and size 256", () => {
    expect(summary(treeTiles(70_000))).toEqual({ '0:256': 273, '0:112': 1, '1:256': 1, '1:17': 1, '2:1': 1 });
    expect(treeTiles(256)).toEqual([
      { level: 0, index: 0, width: 256 },
      { level: 1, index: 0, width: 1 },
    ]);
    expect(treeTiles(0)).toEqual([]);
    expect(treeTiles(1)).toEqual([{ level: 0, index: 0, width: 1 }]);
    expect(treeBundles(513)).toEqual([
      { level: ENTRIES_LEVEL, index: 0, width: 256 },
      { level: ENTRIES_LEVEL, index: 1, width: 256 },
      { level: ENTRIES_LEVEL, index: 2, width: 1 },
    ]);
  });

  it('knows which tiles a tree holds: every one it lists, partial ones narrower than the edge, nothing past it', () => {
    for (const size of [1, 255, 256, 257, 70_000, 65_536]) {
      for (const tile of [...treeTiles(size), ...treeBundles(size)]) {
        expect(tileExists(tile, size), `${tilePath(tile)} at ${size}`).toBe(true);
        if (tile.width < 256) {
          expect(tileExists({ ...tile, width: tile.width + 1 }, size)).toBe(false);
          expect(tileExists({ ...tile, width: 1 }, size)).toBe(true);
        }
      }
      const tiles = [...treeTiles(size), ...treeBundles(size)];
      const last_of_level = tiles.filter((tile, i) => tiles[i + 1]?.level !== tile.level);
      for (const tile of last_of_level)
        expect(tileExists({ ...tile, index: tile.index + 1, width: 1 }, size)).toBe(false);
    }
    // Full tiles stay served as the tree grows.
    expect(tileExists({ level: 0, index: 0, width: 256 }, 70_000)).toBe(true);
    expect(tileExists({ level: 0, index: 0, width: 17 }, 70_000)).toBe(true);
    expect(tileExists({ level: 2, index: 0, width: 1 }, 65_535)).toBe(false);
    expect(tileExists({ level: 63, index: 0, width: 1 }, Number.MAX_SAFE_INTEGER)).toBe(false);
  });
});

describe('entry bundles', () => {
  it('are big-endian uint16 lengths, each followed by its entry', () => {
    const entries = [new Uint8Array([0x61]), new Uint8Array(0), new Uint8Array(300).fill(7)];
    const bundle = encodeBundle(entries);
    expect([...bundle.subarray(0, 5)]).toEqual([0, 1, 0x61, 0, 0]);
    expect([...bundle.subarray(5, 7)]).toEqual([0x01, 0x2c]);
    expect(bundle.length).toBe(2 + 1 + 2 + 2 + 300);
    expect(decodeBundle(bundle)).toEqual(entries);
    expect(decodeBundle(new Uint8Array(0))).toEqual([]);
  });

  it('round-trip any entries up to 65,535 bytes and refuse a longer one', () => {
    const entries = fc.array(fc.uint8Array({ maxLength: 600 }), { maxLength: 20 });
    fc.assert(
      fc.property(entries, (list) => {
        expect(decodeBundle(encodeBundle(list))).toEqual(list);
      }),
    );
    expect(decodeBundle(encodeBundle([new Uint8Array(65_535)]))[0]!.length).toBe(65_535);
    expect(() => encodeBundle([new Uint8Array(65_536)])).toThrow(RangeError);
  });

  it('refuse a bundle cut short, in a length or in an entry', () => {
    const bundle = encodeBundle([new Uint8Array([1, 2, 3])]);
    expect(() => decodeBundle(bundle.subarray(0, 1))).toThrow(/cut short/);
    expect(() => decodeBundle(bundle.subarray(0, 4))).toThrow(/past the end/);
  });
});

describe('tile bytes', () => {
  it('split into 32-byte hashes; a ragged length is refused', () => {
    const bytes = Uint8Array.from({ length: 96 }, (_, i) => i);
    expect(tileHashes(bytes).map((hash) => hash[0])).toEqual([0, 32, 64]);
    expect(() => tileHashes(bytes.subarray(0, 95))).toThrow(RangeError);
  });
});
