import { LRUCache } from 'lru-cache';
import { LEDGER_RECIPE } from '../engine/ledger.js';
import type { LmdbStore } from '../engine/store/lmdb_store.js';

const RECIPE_JSON = JSON.stringify(LEDGER_RECIPE);

/**
 * Pages of the ledger as served. Entries are stored as the JSON they are served as,
 * so a page is spliced, never re-encoded; and a full page (one that ends at or below
 * the head) can never change, so its entries are kept as bytes, least recently used
 * out first. The head and next_from around them are written fresh on every answer.
 */
export class LedgerPages {
  private readonly full_pages: LRUCache<string, Buffer>;

  constructor(
    private readonly store: LmdbStore,
    cache_bytes_max = 16 * 1024 * 1024,
  ) {
    this.full_pages = new LRUCache<string, Buffer>({ maxSize: cache_bytes_max, sizeCalculation: (bytes) => bytes.length });
  }

  /** The body of GET /api/v1/ledger for from..from+limit-1, and whether every entry it asks for exists. */
  page(from: number, limit: number): { body: Buffer; full: boolean } {
    const head = this.store.ledgerHead();
    const full = from + limit - 1 <= head.seq;
    const key = `${from}:${limit}`;
    let entries = full ? this.full_pages.get(key) : undefined;
    let count = full ? limit : undefined;
    if (!entries) {
      const page = this.store.ledgerPage(from, limit);
      count = page.length;
      entries = Buffer.from(`[${page.join(',')}]}`);
      if (full) this.full_pages.set(key, entries);
    }
    const last_seq = count! > 0 ? from + count! - 1 : undefined;
    const next_from = last_seq !== undefined && last_seq < head.seq ? last_seq + 1 : null;
    const opening = Buffer.from(`{"recipe":${RECIPE_JSON},"head":${JSON.stringify(head)},"next_from":${next_from},"entries":`);
    return { body: Buffer.concat([opening, entries]), full };
  }
}
