import { escapeHtml, memberTextHtml } from '../escape.js';
import { scrollRegion } from '../layout.js';

/** Small helpers the pages share; every value passes through escapeHtml. */
export const e = escapeHtml;

/** What a member wrote: escaped, and isolated from the page's own text around it. */
export const member = memberTextHtml;

/**
 * A table in a named, focusable box that scrolls sideways when a value is wider than the
 * screen (a hash, a long id), so the page never does and a keyboard can reach it.
 */
export function table(
  label: string,
  headers: string[],
  rows: (string | number)[][],
  raw_columns: number[] = [],
): string {
  const head = headers.map((h) => `<th>${e(h)}</th>`).join('');
  const body = rows
    .map(
      (row) =>
        `<tr>${row.map((cell, i) => `<td>${raw_columns.includes(i) ? cell : e(String(cell))}</td>`).join('')}</tr>`,
    )
    .join('\n');
  return scrollRegion(label, `<table><thead><tr>${head}</tr></thead><tbody>\n${body}\n</tbody></table>`);
}

export function link(href: string, text: string): string {
  return `<a href="${e(href)}">${e(text)}</a>`;
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

/** Closest zoom of the world viewer's permalinks at which single tiles read. */
const TILE_ZOOM = 4;

/** A tile on the world map, centred and close enough to see. */
export function tileHref({ x, y }: { x: number; y: number }): string {
  return `/world?x=${x}&y=${y}&z=${TILE_ZOOM}`;
}

/** A Dispatch at the top of the Dispatches page (the page before the next one shows it first), at its anchor. */
export function dispatchHref(dispatch_id: number): string {
  return `/dispatches?before_id=${dispatch_id + 1}#dispatch-${dispatch_id}`;
}

/** A motion id, linked to its page. */
export function motionLink(motion_id: string): string {
  return `<a href="/motions/${e(encodeURIComponent(motion_id))}"><code class="motion-id">${e(motion_id)}</code></a>`;
}

const AGENT_ID = /^ag_[0-9a-f]{16}$/;
const MOTION_ID = /^M-\d{4,}-[0-9a-f]{4}$/;

function isTile(value: unknown): value is { x: number; y: number; z?: unknown } {
  if (typeof value !== 'object' || value === null) return false;
  const { x, y } = value as Record<string, unknown>;
  return Number.isInteger(x) && Number.isInteger(y);
}

/** One value of a record as a person reads it: the things it names linked, what members wrote isolated. */
function dataValueHtml(key: string, value: unknown): string {
  if (value === null || value === undefined) return '<em>none</em>';
  if (isTile(value)) {
    const z = Number.isInteger(value.z) ? `, depth ${String(value.z)}` : '';
    return `<a href="${e(tileHref(value))}">(${value.x}, ${value.y})</a>${z}`;
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return '<em>none</em>';
    if (value.every((item) => typeof item !== 'object' || item === null))
      return value.map((item) => dataValueHtml(key, item)).join(', ');
    return `<ol class="data">${value.map((item) => `<li>${dataValueHtml(key, item)}</li>`).join('')}</ol>`;
  }
  if (typeof value === 'object') return dataListHtml(value as Record<string, unknown>);
  if (typeof value === 'number' && Number.isInteger(value) && /(^|_)seq$/.test(key))
    return `<a href="/ledger/${value}">entry ${value}</a>`;
  if (typeof value === 'number' && key === 'dispatch_id')
    return `<a href="${e(dispatchHref(value))}">Dispatch ${value}</a>`;
  if (typeof value !== 'string') return e(String(value));
  if (AGENT_ID.test(value)) return `<a href="/agents/${value}"><code class="agent-id">${value}</code></a>`;
  if (MOTION_ID.test(value)) return motionLink(value);
  if (key === 'module_id') return `<a href="/modules/${e(encodeURIComponent(value))}">${member(value)}</a>`;
  return member(value);
}

/**
 * A record a page shows as data (a ledger entry's fields, a motion's changes) as a list a
 * person reads, never as raw JSON: each key in words, tiles linked to the map, agent,
 * motion, module, entry and Dispatch ids linked to their pages, nested values nested.
 */
export function dataListHtml(record: Record<string, unknown>): string {
  const items = Object.entries(record).map(
    ([key, value]) => `<li><span class="key">${e(key.replaceAll('_', ' '))}</span>: ${dataValueHtml(key, value)}</li>`,
  );
  return items.length === 0 ? '<p><em>No fields.</em></p>' : `<ul class="data">${items.join('')}</ul>`;
}
