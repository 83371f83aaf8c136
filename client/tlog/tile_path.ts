/**
 * C2SP tlog-tiles (https://c2sp.org/tlog-tiles): where a tile or an entry bundle lives,
 * what an entry bundle's bytes are, and which tiles make up a tree of a given size.
 * Pure: the server routes and the verifiers share it, so both agree on every path.
 */
import { HASH_BYTES, type Hash } from './hasher.js';

/** Hashes in a full tile, entries in a full bundle. */
export const TILE_WIDTH = 256;
/** Tree levels one tile spans: a tile at level L holds hashes of tree level 8 * L. */
export const TILE_HEIGHT = 8;
/** The highest level tlog-tiles allows in a path. */
export const TILE_LEVEL_MAX = 63;
/** An entry's length is a big-endian uint16 in a bundle, so no entry may be longer. */
export const BUNDLE_ENTRY_BYTES_MAX = 0xffff;
/** The level that names entry bundles (`tile/entries/...`) rather than hashes, as Go's tlog numbers data tiles. */
export const ENTRIES_LEVEL = -1;

/**
 * A tile: `width` hashes of tile level `level` starting at hash `index * 256` (or, at
 * ENTRIES_LEVEL, the bundle of entries index * 256 .. index * 256 + width - 1). A width
 * of 256 is a full tile; 1..255 a partial one.
 */
export interface TileId {
  level: number;
  index: number;
  width: number;
}

/** `<N>` of a tile path: three-digit groups, all but the last prefixed with x (1234067 is x001/x234/067). */
export function formatTileIndex(index: number): string {
  if (!Number.isSafeInteger(index) || index < 0) throw new RangeError(`tile index ${index} is not a natural number`);
  const groups: string[] = [];
  let rest = index;
  do {
    groups.unshift(String(rest % 1000).padStart(3, '0'));
    rest = Math.floor(rest / 1000);
  } while (rest > 0);
  return groups.map((group, i) => (i < groups.length - 1 ? `x${group}` : group)).join('/');
}

/** The path of a tile below the log's prefix: `tile/<L>/<N>[.p/<W>]` or `tile/entries/<N>[.p/<W>]`. */
export function tilePath(tile: TileId): string {
  if (!isTileId(tile)) throw new RangeError(`not a tile: ${JSON.stringify(tile)}`);
  const level = tile.level === ENTRIES_LEVEL ? 'entries' : String(tile.level);
  const partial = tile.width < TILE_WIDTH ? `.p/${tile.width}` : '';
  return `tile/${level}/${formatTileIndex(tile.index)}${partial}`;
}

const LEVEL_TEXT = /^(?:entries|0|[1-9]\d?)$/;
const INDEX_GROUP = /^x\d{3}$/;
const LAST_GROUP = /^(\d{3})(\.p)?$/;
const WIDTH_TEXT = /^[1-9]\d{0,2}$/;
/** 2^53 has 16 digits: a longer path is refused before any arithmetic. */
const INDEX_GROUPS_MAX = 6;

/**
 * The tile a path names, or undefined for anything that is not exactly the canonical
 * path of one: a level outside 0..63, a width outside 1..255, an index with a leading
 * x000 group, a stray slash or suffix. Strict, because one tile must have one URL:
 * caches and mirrors key on it.
 */
export function parseTilePath(path: string): TileId | undefined {
  const parts = path.split('/');
  if (parts.length < 3 || parts[0] !== 'tile' || !LEVEL_TEXT.test(parts[1]!)) return undefined;
  const level = parts[1] === 'entries' ? ENTRIES_LEVEL : Number(parts[1]);
  const rest = parts.slice(2);
  const last_group_at = rest.findIndex((part) => !INDEX_GROUP.test(part));
  if (last_group_at < 0 || last_group_at >= INDEX_GROUPS_MAX) return undefined;
  const last = LAST_GROUP.exec(rest[last_group_at]!);
  if (!last) return undefined;
  const after = rest.slice(last_group_at + 1);
  let width = TILE_WIDTH;
  if (last[2] !== undefined) {
    if (after.length !== 1 || !WIDTH_TEXT.test(after[0]!)) return undefined;
    width = Number(after[0]);
  } else if (after.length !== 0) return undefined;
  const digits = rest.slice(0, last_group_at).map((group) => group.slice(1));
  const index = Number([...digits, last[1]].join(''));
  const tile = { level, index, width };
  // The canonical path of what was read must be what was asked: this refuses x000 leading groups and W=256.
  return isTileId(tile) && tilePath(tile) === path ? tile : undefined;
}

function isTileId({ level, index, width }: TileId): boolean {
  const level_ok = level === ENTRIES_LEVEL || (Number.isInteger(level) && level >= 0 && level <= TILE_LEVEL_MAX);
  return level_ok && Number.isSafeInteger(index) && index >= 0 && Number.isInteger(width) && width >= 1 && width <= 256;
}

/** How many hashes tile level `level` holds in a tree of `size` leaves (entries for ENTRIES_LEVEL). */
export function hashesAtLevel(level: number, size: number): number {
  const tile_level = Math.max(level, 0);
  return Math.floor(size / TILE_WIDTH ** tile_level);
}

/**
 * Does the tree of `size` leaves hold every hash (or entry) of this tile? Only then can
 * it be served: its bytes never change once they exist.
 */
export function tileExists(tile: TileId, size: number): boolean {
  return tile.index * TILE_WIDTH + tile.width <= hashesAtLevel(tile.level, size);
}

/**
 * The hash tiles a tree of `size` leaves consists of, level 0 first: at each level the
 * full tiles and, when the level's count is not a multiple of 256, one partial tile.
 * tlog-tiles' example: size 70,000 is 273 full level-0 tiles and one of width 112, one
 * full level-1 tile and one of width 17, and a level-2 tile of width 1.
 */
export function treeTiles(size: number): TileId[] {
  const tiles: TileId[] = [];
  for (let level = 0; level <= TILE_LEVEL_MAX && hashesAtLevel(level, size) > 0; level++)
    tiles.push(...levelTiles(level, hashesAtLevel(level, size)));
  return tiles;
}

/** The entry bundles holding the entries of a tree of `size` leaves. */
export function treeBundles(size: number): TileId[] {
  return levelTiles(ENTRIES_LEVEL, size);
}

function levelTiles(level: number, count: number): TileId[] {
  const full = Math.floor(count / TILE_WIDTH);
  const tiles = Array.from({ length: full }, (_, index) => ({ level, index, width: TILE_WIDTH }));
  if (count % TILE_WIDTH > 0) tiles.push({ level, index: full, width: count % TILE_WIDTH });
  return tiles;
}

/** An entry bundle: each entry as a big-endian uint16 length and its bytes. */
export function encodeBundle(entries: readonly Uint8Array[]): Uint8Array {
  let length = 0;
  for (const entry of entries) {
    if (entry.length > BUNDLE_ENTRY_BYTES_MAX)
      throw new RangeError(
        `an entry of ${entry.length} bytes is longer than a bundle holds (${BUNDLE_ENTRY_BYTES_MAX})`,
      );
    length += 2 + entry.length;
  }
  const bundle = new Uint8Array(length);
  let at = 0;
  for (const entry of entries) {
    bundle[at] = entry.length >> 8;
    bundle[at + 1] = entry.length & 0xff;
    bundle.set(entry, at + 2);
    at += 2 + entry.length;
  }
  return bundle;
}

/** The entries of a bundle; a length running past the end is a malformed bundle (RangeError). */
export function decodeBundle(bundle: Uint8Array): Uint8Array[] {
  const entries: Uint8Array[] = [];
  let at = 0;
  while (at < bundle.length) {
    if (at + 2 > bundle.length) throw new RangeError(`bundle: a length cut short at byte ${at}`);
    const length = (bundle[at]! << 8) | bundle[at + 1]!;
    if (at + 2 + length > bundle.length) throw new RangeError(`bundle: an entry at byte ${at} runs past the end`);
    entries.push(bundle.subarray(at + 2, at + 2 + length));
    at += 2 + length;
  }
  return entries;
}

/** A tile's bytes as its hashes, 32 bytes each; a length that is not a whole number of hashes is refused. */
export function tileHashes(tile_bytes: Uint8Array): Hash[] {
  if (tile_bytes.length % HASH_BYTES !== 0)
    throw new RangeError(`tile of ${tile_bytes.length} bytes: not whole hashes`);
  return Array.from({ length: tile_bytes.length / HASH_BYTES }, (_, i) =>
    tile_bytes.subarray(i * HASH_BYTES, (i + 1) * HASH_BYTES),
  );
}
