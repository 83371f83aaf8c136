import { LedgerChecker, type WireEntry } from './ledger_check.js';

export interface VerifyReport {
  ok: boolean;
  entries_checked: number;
  head: { seq: number; hash: string };
  first_bad_seq?: number;
  reason?: string;
}

export interface VerifyOptions {
  fetcher?: typeof fetch;
  page_size?: number;
  on_progress?: (checked: number, head_seq: number) => void;
}

interface LedgerPage {
  head: { seq: number; hash: string };
  entries: WireEntry[];
}

/**
 * Downloads the whole ledger page by page and checks it with LedgerChecker. The
 * head the server reports at the end must be the one the chain arrives at.
 */
export async function verifyLedger(base_url: string, options: VerifyOptions = {}): Promise<VerifyReport> {
  const fetcher = options.fetcher ?? fetch;
  const page_size = options.page_size ?? 1000;
  const checker = new LedgerChecker();
  let head = { seq: 0, hash: '' };
  for (let from = 1; ; ) {
    const response = await fetcher(`${base_url.replace(/\/+$/, '')}/api/v1/ledger?from=${from}&limit=${page_size}`);
    if (!response.ok) throw new Error(`ledger page from ${from}: HTTP ${response.status}`);
    const page = (await response.json()) as LedgerPage;
    head = page.head;
    for (const entry of page.entries) {
      const problem = await checker.check(entry);
      if (problem)
        return {
          ok: false,
          entries_checked: checker.checked,
          head,
          first_bad_seq: problem.seq,
          reason: problem.reason,
        };
    }
    options.on_progress?.(checker.checked, head.seq);
    if (page.entries.length === 0 || checker.checked >= head.seq) break;
    from = checker.checked + 1;
  }
  if (checker.checked !== head.seq || checker.head_hash !== head.hash) {
    return {
      ok: false,
      entries_checked: checker.checked,
      head,
      first_bad_seq: checker.checked + 1,
      reason: 'the chain does not reach the head the server reports',
    };
  }
  return { ok: true, entries_checked: checker.checked, head };
}
