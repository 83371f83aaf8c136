import { createHash } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import {
  encodeBundle,
  ENTRIES_LEVEL,
  parseTilePath,
  TILE_WIDTH,
  tileExists,
  type TileId,
} from '../../client/tlog/tile_path.js';
import type { LedgerReader } from '../../engine/index.js';
import type { TileAnswer } from './log_routes.js';

/** What the log's routes read of the Merkle tree the engine keeps (engine.log_tree). */
export interface LogTreeReader {
  root(size: number): Uint8Array;
  inclusionProof(leaf_index: number, size: number): Uint8Array[];
  consistencyProof(old_size: number, new_size: number): Uint8Array[];
  /** width hashes of tree level 8 * level from node index * 256 on; throws when one is not complete. */
  tile(level: number, index: number, width: number): Uint8Array;
}

/** The log as a reader may see it: the tree, and how many of its leaves are committed (and so may be shown). */
export interface LogView {
  tree: () => LogTreeReader;
  /** The committed tree size: never one leaf of a tick that is not yet durable. */
  size: () => number;
  ledger: LedgerReader;
}

export interface ServedTile {
  bytes: Buffer;
  /** Strong: the SHA-256 of the bytes. */
  etag: string;
  full: boolean;
  /** Its answers' headers (tileAnswer), made on its first read. */
  answers?: { ok: TileAnswer; not_modified: TileAnswer };
}

/**
 * Tiles and entry bundles as served. The bytes at one tile path never change once the
 * committed tree holds all of it (a partial tile of width W is the first W hashes of the
 * full one), so each is made once and kept, least recently used out first: a tile read
 * is then a path parse and a lookup.
 */
export class LogTiles {
  private readonly kept: LRUCache<string, ServedTile>;

  constructor(
    readonly log: LogView,
    cache_bytes_max = 32 * 1024 * 1024,
  ) {
    this.kept = new LRUCache<string, ServedTile>({ maxSize: cache_bytes_max, sizeCalculation: (t) => t.bytes.length });
  }

  /**
   * The tile at a path below the log's prefix (`tile/...`), or undefined when it is not
   * the canonical path of a tile the committed tree holds all of.
   */
  at(path: string): ServedTile | undefined {
    // Only canonical paths are ever kept, so a kept path needs no parse.
    const kept = this.kept.get(path);
    if (kept) return kept;
    const tile = parseTilePath(path);
    return tile && this.get(tile, path);
  }

  /** The tile at its canonical path, or undefined when the committed tree does not hold all of it yet. */
  get(tile: TileId, path: string): ServedTile | undefined {
    // Kept means it existed at a committed size, and committed sizes never shrink.
    const kept = this.kept.get(path);
    if (kept) return kept;
    if (!tileExists(tile, this.log.size())) return undefined;
    const bytes = tile.level === ENTRIES_LEVEL ? this.bundle(tile) : this.hashes(tile);
    const etag = `"${createHash('sha256').update(bytes).digest('hex')}"`;
    const served = { bytes, etag, full: tile.width === TILE_WIDTH };
    this.kept.set(path, served);
    return served;
  }

  private hashes({ level, index, width }: TileId): Buffer {
    // A copy: the bytes are kept, and the tree owes nothing about the array it lends.
    return Buffer.from(this.log.tree().tile(level, index, width));
  }

  /** Leaf i is ledger entry seq i + 1, as the ledger serves it. */
  private bundle({ index, width }: TileId): Buffer {
    const entries = this.log.ledger.page(index * TILE_WIDTH + 1, width);
    if (entries.length !== width)
      throw new Error(`ledger page at ${index * TILE_WIDTH + 1}: ${entries.length} of ${width}`);
    const bundle = encodeBundle(entries.map((entry) => Buffer.from(entry, 'utf8')));
    return Buffer.from(bundle.buffer, bundle.byteOffset, bundle.byteLength);
  }
}
