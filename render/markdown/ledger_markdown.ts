import { markdown } from './blocks.js';
import type { LedgerEntryView, LedgerView, ListedEntry } from '../pages/ledger_pages.js';
import { sentenceMarkdown, type NameOf } from '../sentence_text.js';
import { timeText } from '../time.js';

function namesOf(entry: ListedEntry): NameOf {
  return (agent_id) => ({ agent_id, handle: entry.names[agent_id] ?? null });
}

/** Each entry a line: its seq, its sentence, its time. */
export function ledgerMarkdown(view: LedgerView, now_ms: number): string {
  const lines = view.entries.map(
    (entry) => `- #${entry.seq} ${sentenceMarkdown(entry.sentence, namesOf(entry))} (${timeText(entry.at, now_ms)})`,
  );
  const hidden =
    view.filters.bookkeeping === 'hidden' && view.hidden_bookkeeping > 0
      ? [`${view.hidden_bookkeeping} bookkeeping entries left out; add bookkeeping=shown to see them.`, '']
      : [];
  return markdown('Ledger', [
    `Head: seq ${view.head.seq}, hash \`${view.head.hash}\`. The raw chain and its recipe: /api/v1/ledger.`,
    '',
    ...hidden,
    ...(lines.length > 0 ? lines : ['No entry here matches.']),
    ...(view.older !== null ? ['', `Older: /ledger.md?before=${view.older}`] : []),
    ...(view.newer !== null ? ['', `Newer: /ledger.md?after=${view.newer}`] : []),
  ]);
}

export function ledgerEntryMarkdown(view: LedgerEntryView, now_ms: number): string {
  return markdown(`Ledger entry ${view.seq}`, [
    `${sentenceMarkdown(view.sentence, namesOf(view))}, ${timeText(view.at, now_ms)}.`,
    '',
    `Event \`${view.event_type}\`, proof: ${view.proof_status}. Receipt: /log/receipt/${view.seq}.`,
    '',
    '```json',
    view.json,
    '```',
  ]);
}
