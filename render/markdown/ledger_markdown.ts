import { markdown, mdTable } from './blocks.js';
import type { LedgerView } from '../pages/ledger_pages.js';

export function ledgerMarkdown({ head, entries, older }: LedgerView): string {
  return markdown('Ledger', [
    `Head: seq ${head.seq}, hash \`${head.hash}\`. The raw chain and its recipe: /api/v1/ledger.`,
    '',
    mdTable(
      ['seq', 'at', 'event', 'actor'],
      entries.map((x) => [x.seq, x.at, x.event_type, x.actor]),
    ),
    ...(older ? ['', `Older: /ledger.md?before=${older}`] : []),
  ]);
}
