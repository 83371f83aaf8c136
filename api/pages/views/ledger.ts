import type { LedgerEntryView, LedgerView } from '../../../render/pages/ledger_pages.js';
import { type ReadContext } from '../../../engine/index.js';

import { page_size } from './paging.js';

export function ledgerView({ ledger }: ReadContext, { before }: { before?: number }): LedgerView {
  const head = ledger.head();
  const end = Math.min(head.seq, before === undefined ? Number.MAX_SAFE_INTEGER : before - 1);
  const from = Math.max(1, end - page_size + 1);
  const entries = ledger
    .page(from, end - from + 1)
    .map((json) => JSON.parse(json) as LedgerView['entries'][number])
    .reverse();
  return { head, entries, older: from > 1 ? from : null };
}

export function ledgerEntryView({ ledger }: ReadContext, { seq }: { seq: number }): LedgerEntryView | null {
  const [json] = ledger.page(seq, 1);
  return json ? { seq, json } : null;
}
