import { LRUCache } from 'lru-cache';
import { LEDGER_RECIPE, type LedgerReader, isFullPage, nextFrom, type LedgerHead } from '../engine/index.js';

const RECIPE_JSON = JSON.stringify(LEDGER_RECIPE);

interface FullPage {
  /** `[entry,...]}`: never changes. */
  entries: Buffer;
  /** The whole answer as last written, and the head it was written under. */
  body: Buffer;
  head_seq: number;
}

/**
 * Pages of the ledger as served: the bytes of the ledger_read view's answer
 * (engine/reads/ledger.ts), written without parsing an entry. Entries are stored as
 * the JSON they are served as, so a page is spliced, never re-encoded. A full page
 * (one that ends at or below the head) can never change, so its bytes are kept, least
 * recently used out first; only the head and next_from around them move, and the
 * answer is rewritten when they do (at most once a commit), not on every request: a
 * 100-entry page is ~60 KB to copy.
 */
export class LedgerPages {
  private readonly full_pages: LRUCache<string, FullPage>;

  constructor(
    private readonly ledger: LedgerReader,
    cache_bytes_max = 32 * 1024 * 1024,
  ) {
    this.full_pages = new LRUCache<string, FullPage>({
      maxSize: cache_bytes_max,
      sizeCalculation: (page) => page.entries.length + page.body.length,
    });
  }

  /** The body of GET /api/v1/ledger for from..from+limit-1, and whether every entry it asks for exists. */
  page(from: number, limit: number): { body: Buffer; full: boolean } {
    const head = this.ledger.head();
    if (!isFullPage(from, limit, head)) {
      const page = this.ledger.page(from, limit);
      return { body: answer(from, page.length, head, entriesBytes(page)), full: false };
    }
    const key = `${from}:${limit}`;
    const kept = this.full_pages.get(key);
    if (kept && kept.head_seq === head.seq) return { body: kept.body, full: true };
    const entries = kept?.entries ?? entriesBytes(this.ledger.page(from, limit));
    const body = answer(from, limit, head, entries);
    this.full_pages.set(key, { entries, body, head_seq: head.seq });
    return { body, full: true };
  }
}

function entriesBytes(page: string[]): Buffer {
  return Buffer.from(`[${page.join(',')}]}`);
}

function answer(from: number, count: number, head: LedgerHead, entries: Buffer): Buffer {
  const next_from = nextFrom(from, count, head);
  const prefix = `{"recipe":${RECIPE_JSON},"head":${JSON.stringify(head)},"next_from":${next_from},"entries":`;
  return Buffer.concat([Buffer.from(prefix), entries]);
}
