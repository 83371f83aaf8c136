import { escapeHtml, memberTextHtml } from '../escape.js';

/** Small helpers the pages share; every value passes through escapeHtml. */
export const e = escapeHtml;

/** What a member wrote: escaped, and isolated from the page's own text around it. */
export const member = memberTextHtml;

export function table(headers: string[], rows: (string | number)[][], raw_columns: number[] = []): string {
  const head = headers.map((h) => `<th>${e(h)}</th>`).join('');
  const body = rows
    .map(
      (row) =>
        `<tr>${row.map((cell, i) => `<td>${raw_columns.includes(i) ? cell : e(String(cell))}</td>`).join('')}</tr>`,
    )
    .join('\n');
  return `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`;
}

export function link(href: string, text: string): string {
  return `<a href="${e(href)}">${e(text)}</a>`;
}

export function pre(text: string): string {
  return `<pre>${e(text)}</pre>`;
}

/** A member's multi-line text, kept as written, isolated like every other member text. */
export function memberPre(text: string): string {
  return `<pre>${member(text)}</pre>`;
}
