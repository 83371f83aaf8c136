import { LRUCache } from 'lru-cache';
import { LEDGER_RECIPE } from '../engine/ledger.js';
import type { LedgerHead } from '../engine/state.js';
import type { LmdbStore } from '../engine/store/lmdb_store.js';

const RECIPE_JSON = JSON.stringify(LEDGER_RECIPE);

interface FullPage {
  /** `[entry,...]}`: never changes. */
  entries: Buffer;
  /** The whole answer as last written, and the head it was written under. */
  body: Buffer;
  head_seq: number;
}

/**
 * Pages of the ledger as served. Entries are stored as the JSON they are served as,
 * so a page is spliced, never re-encoded. A full page (one that ends at or below the
 * head) can never change, so its bytes are kept, least recently used out first; only
 * the head and next_from around them move, and the answer is rewritten when they do
 * (at most once a commit), not on every request: a 100-entry page is ~60 KB to copy.
 */
export class LedgerPages {
  private readonly full_pages: LRUCache<string, FullPage>;

  constructor(
    private readonly store: LmdbStore,
    cache_bytes_max = 32 * 1024 * 1024,
  ) {
    this.full_pages = new LRUCache<string, FullPage>({ maxSize: cache_bytes_max, sizeCalculation: (page) => page.entries.length + page.body.length });
  }

  /** The body of GET /api/v1/ledger for from..from+limit-1, and whether every entry it asks for exists. */
  page(from: number, limit: number): { body: Buffer; full: boolean } {
    const head = this.store.ledgerHead();
    if (from + limit - 1 > head.seq) {
      const page = this.store.ledgerPage(from, limit);
      return { body: answer(from, page.length, head, entriesBytes(page)), full: false };
    }
    const key = `${from}:${limit}`;
    const kept = this.full_pages.get(key);
    if (kept && kept.head_seq === head.seq) return { body: kept.body, full: true };
    const entries = kept?.entries ?? entriesBytes(this.store.ledgerPage(from, limit));
    const body = answer(from, limit, head, entries);
    this.full_pages.set(key, { entries, body, head_seq: head.seq });
    return { body, full: true };
  }
}

function entriesBytes(page: string[]): Buffer {
  return Buffer.from(`[${page.join(',')}]}`);
}

function answer(from: number, count: number, head: LedgerHead, entries: Buffer): Buffer {
  const last_seq = count > 0 ? from + count - 1 : undefined;
  const next_from = last_seq !== undefined && last_seq < head.seq ? last_seq + 1 : null;
  return Buffer.concat([Buffer.from(`{"recipe":${RECIPE_JSON},"head":${JSON.stringify(head)},"next_from":${next_from},"entries":`), entries]);
}
