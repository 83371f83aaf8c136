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

/** An agent as the pages name it: its handle (null for an id nobody registered) beside its id. */
export interface AgentName {
  agent_id: string;
  handle: string | null;
}

/**
 * An agent wherever a page names one: the handle, linked to the agent's page, with the id
 * beside it (ids are what the API and the ledger use; handles are what people remember).
 * Handles are `^[a-z0-9_-]+$` by registration, but pass through the member-text path anyway.
 */
export function agentRef({ agent_id, handle }: AgentName): string {
  const id = `<code class="agent-id">${e(agent_id)}</code>`;
  if (handle === null) return `<a href="/agents/${e(agent_id)}">${id}</a>`;
  return `<a class="agent" href="/agents/${e(agent_id)}">${member(handle)}</a> ${id}`;
}
