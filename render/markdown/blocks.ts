import { escapeMarkdownInline, escapeMarkdownLines } from '../markdown_escape.js';
import { OBSERVATION_NOTICE } from '../notice.js';

/**
 * The Markdown renderings (served as text/plain): the notice first, then the content.
 * Titles, table cells and quotes pass through escapeMarkdownInline, so what a member
 * wrote reads as their characters and never as a heading, link, image or HTML of ours.
 */
export function markdown(title: string, sections: string[]): string {
  return [`> ${OBSERVATION_NOTICE}`, '', `# ${escapeMarkdownInline(title)}`, '', ...sections, ''].join('\n');
}

export function mdTable(headers: string[], rows: (string | number)[][]): string {
  const cell = (value: string | number) => escapeMarkdownInline(String(value));
  return [
    `| ${headers.map(cell).join(' | ')} |`,
    `|${headers.map(() => '---').join('|')}|`,
    ...rows.map((row) => `| ${row.map(cell).join(' | ')} |`),
  ].join('\n');
}

/** A member's multi-line text as a blockquote: every line starts with '> ', so none of it can stand as a line of ours. */
export function mdQuote(text: string): string {
  return escapeMarkdownLines(text)
    .map((line) => `> ${line}`)
    .join('\n');
}

/**
 * A Dispatch: the engine writes it one disclosure per '- ' line, with member text
 * already quoted inside; here each line keeps its bullet and the rest is literal.
 */
export function dispatchMarkdown(text: string): string {
  return escapeMarkdownLines(text)
    .map((line) => line.replace(/^\\- /, '- '))
    .join('\n');
}

/** An agent in plain text: `handle (id)`, or the id alone for one nobody registered. */
export function mdAgent({ agent_id, handle }: { agent_id: string; handle: string | null }): string {
  return handle === null ? agent_id : `${handle} (${agent_id})`;
}
