import { markdown } from './blocks.js';
import type { LedgerEntryView, LedgerView, ListedEntry } from '../pages/ledger_pages.js';
import { sentenceMarkdown, type NameOf } from '../sentence_text.js';
import { escapeMarkdownInline } from '../markdown_escape.js';
import { plural } from '../words.js';
import { timeText } from '../time.js';

function namesOf(entry: ListedEntry): NameOf {
  return (agent_id) => ({ agent_id, handle: entry.names[agent_id] ?? null });
}

/** An entry's sentence in Markdown, its agents by handle and its motions by title. */
export function entrySentenceMarkdown(entry: ListedEntry): string {
  return sentenceMarkdown(entry.sentence, namesOf(entry), (motion_id) => entry.titles[motion_id] ?? null);
}

/** What the search box found, as the HTML page says it. */
function searchMarkdown(view: LedgerView): string[] {
  const { search } = view;
  if (search === null) return [];
  if (search.found === null)
    return [
      `Nothing on the ledger goes by “${escapeMarkdownInline(search.q)}”: no agent, event type, motion or entry by that name.`,
      '',
    ];
  return [`Showing what “${escapeMarkdownInline(search.q)}” names.`, ''];
}

/** Each entry a line: its seq, its sentence, its time. */
export function ledgerMarkdown(view: LedgerView, now_ms: number): string {
  const lines = view.entries.map(
    (entry) => `- #${entry.seq} ${entrySentenceMarkdown(entry)} (${timeText(entry.at, now_ms)})`,
  );
  const hidden =
    view.filters.bookkeeping === 'hidden' && view.hidden_bookkeeping > 0
      ? [
          `${plural(view.hidden_bookkeeping, 'bookkeeping entry', 'bookkeeping entries')} left out; add bookkeeping=shown to see them.`,
          '',
        ]
      : [];
  return markdown('Ledger', [
    `Head: seq ${view.head.seq}, hash \`${view.head.hash}\`. The raw chain and its recipe: /api/v1/ledger.`,
    '',
    ...searchMarkdown(view),
    ...hidden,
    ...(lines.length > 0 ? lines : ['No entry here matches.']),
    ...(view.older !== null ? ['', `Older: /ledger.md?before=${view.older}`] : []),
    ...(view.newer !== null ? ['', `Newer: /ledger.md?after=${view.newer}`] : []),
  ]);
}

/** A field's value in plain text: a tile as its coordinates, a member's words escaped, anything else as compact JSON. */
function fieldText(value: unknown): string {
  if (typeof value === 'string') return escapeMarkdownInline(value);
  const { x, y } = (value ?? {}) as { x?: unknown; y?: unknown };
  if (Number.isInteger(x) && Number.isInteger(y))
    return `(${String(x)}, ${String(y)}) /world?x=${String(x)}&y=${String(y)}`;
  return escapeMarkdownInline(JSON.stringify(value) ?? 'none');
}

/** The receipt's path in one sentence: the page draws it step by step. */
function inclusionMarkdown(view: LedgerEntryView): string {
  const path = view.inclusion;
  if (path === null) return 'No signed checkpoint covers this entry yet.';
  return `In the transparency log: leaf ${path.leaf_index} of the checkpoint of ${path.checkpoint.size} (${path.checkpoint.origin}); the leaf hash \`${path.leaf_hash}\` reaches the root \`${path.checkpoint.root_hash}\` in ${plural(path.steps.length, 'step')}${path.reaches_root ? '' : ' (it does not: the receipt is wrong)'}.`;
}

export function ledgerEntryMarkdown(view: LedgerEntryView, now_ms: number): string {
  return markdown(`Ledger entry ${view.seq}`, [
    `${entrySentenceMarkdown(view)}, ${timeText(view.at, now_ms)}.`,
    '',
    `Event \`${view.event_type}\`, proof: ${view.proof_status}. Receipt: /log/receipt/${view.seq}.`,
    '',
    '## Fields',
    '',
    ...Object.entries(view.data).map(([key, value]) => `- ${key.replaceAll('_', ' ')}: ${fieldText(value)}`),
    '',
    `Hash \`${view.hash}\`, after \`${view.prev_hash}\`${view.previous === null ? '' : ` (entry ${view.previous}: /ledger/${view.previous}.md)`}.`,
    '',
    inclusionMarkdown(view),
    '',
    '```json',
    view.json,
    '```',
  ]);
}
