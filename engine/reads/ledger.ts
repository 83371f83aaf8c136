import { z } from 'zod';
import { LEDGER_RECIPE } from '../ledger.js';
import { LedgerEntrySchema } from '../events/entry_schema.js';
import { defineRead, limitArg } from '../read.js';
import type { LedgerHead } from '../state.js';

export const ledger_page_max = 1000;

/** Where the page after one of `count` entries from `from` starts; null when it reached the head. */
export function nextFrom(from: number, count: number, head: LedgerHead): number | null {
  const last_seq = from + count - 1;
  return count > 0 && last_seq < head.seq ? last_seq + 1 : null;
}

/** A page that ends at or below the head holds every entry it asks for; entries are never rewritten, so it is final. */
export function isFullPage(from: number, limit: number, head: LedgerHead): boolean {
  return from + limit - 1 <= head.seq;
}

export const ledgerRead = defineRead({
  name: 'ledger_read',
  title: 'Ledger',
  summary: 'Ledger entries in seq order from a seq, with the recipe to re-verify them and where the next page starts.',
  path: '/api/v1/ledger',
  args: z.object({
    from: z
      .int()
      .min(1)
      .default(1)
      .describe('The seq of the first entry to return (1 is the founding); next_from gives the next page'),
    limit: limitArg(ledger_page_max, 500, 'entries'),
  }),
  response: {
    kind: 'json',
    schema: z.object({
      recipe: z.string(),
      head: z.object({ seq: z.int(), hash: z.string() }),
      next_from: z.int().nullable(),
      entries: z.array(LedgerEntrySchema),
    }),
  },
  immutable: ({ ledger }, { from, limit }) => isFullPage(from, limit, ledger.head()),
  view: ({ ledger }, { from, limit }) => {
    const head = ledger.head();
    const entries = ledger.page(from, limit).map((json) => JSON.parse(json) as unknown);
    return { recipe: LEDGER_RECIPE, head, next_from: nextFrom(from, entries.length, head), entries };
  },
});
