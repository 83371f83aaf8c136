/*
 * A ledger sentence (render/ledger_sentences.ts) as HTML and as Markdown: the things it
 * names become links (an agent by handle beside its id, a motion, a tile on the world
 * map, an entry), and what a member wrote is quoted, escaped and isolated.
 */
import { escapeHtml, isolateBidiText, memberTextHtml } from './escape.js';
import { escapeMarkdownInline } from './markdown_escape.js';
import type { SentencePart } from './ledger_sentences.js';
import { agentRef, type AgentName } from './pages/html_bits.js';
import { mdAgent } from './markdown/blocks.js';

/** Closest zoom of the world viewer's permalinks at which single tiles read. */
const TILE_ZOOM = 4;

export type NameOf = (agent_id: string) => AgentName;

function tileHref({ x, y }: { x: number; y: number }): string {
  return `/world?x=${x}&y=${y}&z=${TILE_ZOOM}`;
}

export function sentenceHtml(parts: readonly SentencePart[], nameOf: NameOf): string {
  return parts
    .map((part) => {
      if (typeof part === 'string') return escapeHtml(part);
      if ('agent' in part) return agentRef(nameOf(part.agent));
      if ('motion' in part) return `<a href="/motions/${escapeHtml(part.motion)}">${escapeHtml(part.motion)}</a>`;
      if ('tile' in part) return `<a href="${escapeHtml(tileHref(part.tile))}">(${part.tile.x}, ${part.tile.y})</a>`;
      if ('entry' in part) return `<a href="/ledger/${part.entry}">entry ${part.entry}</a>`;
      if ('dispatch' in part) return `<a href="/dispatches">Dispatch ${part.dispatch}</a>`;
      return `<q class="member">${memberTextHtml(part.quote)}</q>`;
    })
    .join('');
}

export function sentenceMarkdown(parts: readonly SentencePart[], nameOf: NameOf): string {
  return parts
    .map((part) => {
      // Our words and the engine's values (enums, numbers, act names): only the quotes hold what members wrote.
      if (typeof part === 'string') return part;
      if ('agent' in part) return escapeMarkdownInline(mdAgent(nameOf(part.agent)));
      if ('motion' in part) return escapeMarkdownInline(part.motion);
      if ('tile' in part) return `(${part.tile.x}, ${part.tile.y})`;
      if ('entry' in part) return `entry ${part.entry}`;
      if ('dispatch' in part) return `Dispatch ${part.dispatch}`;
      return `“${escapeMarkdownInline(isolateBidiText(part.quote))}”`;
    })
    .join('');
}
