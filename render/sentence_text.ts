/*
 * A ledger sentence (render/ledger_sentences.ts) as HTML and as Markdown: the things it
 * names become links (an agent by handle beside its id, a motion, a tile on the world
 * map, an entry), and what a member wrote is quoted, escaped and isolated.
 */
import { escapeHtml, isolateBidiText, memberTextHtml } from './escape.js';
import { escapeMarkdownInline } from './markdown_escape.js';
import type { SentencePart } from './ledger_sentences.js';
import { agentRef, dispatchHref, tileHref, type AgentName } from './pages/html_bits.js';
import { mdAgent } from './markdown/blocks.js';
import { titleOr } from './words.js';

export type NameOf = (agent_id: string) => AgentName;

/** A motion's title by its id, or null when it is not known (the sentence then shows the id alone). */
export type TitleOf = (motion_id: string) => string | null;

const no_titles: TitleOf = () => null;

/** A motion by its title, linked, with its id beside it (the id is what the API and the ledger use). */
function motionHtml(motion_id: string, title: string | null): string {
  const href = `/motions/${escapeHtml(motion_id)}`;
  const id = `<code class="motion-id">${escapeHtml(motion_id)}</code>`;
  if (title === null) return `<a href="${href}">${id}</a>`;
  return `<a href="${href}">${memberTextHtml(titleOr(title))}</a> ${id}`;
}

export function sentenceHtml(parts: readonly SentencePart[], nameOf: NameOf, titleOf: TitleOf = no_titles): string {
  return parts
    .map((part) => {
      if (typeof part === 'string') return escapeHtml(part);
      if ('agent' in part) return agentRef(nameOf(part.agent));
      if ('motion' in part) return motionHtml(part.motion, titleOf(part.motion));
      if ('tile' in part) return `<a href="${escapeHtml(tileHref(part.tile))}">(${part.tile.x}, ${part.tile.y})</a>`;
      if ('entry' in part) return `<a href="/ledger/${part.entry}">entry ${part.entry}</a>`;
      if ('dispatch' in part) return `<a href="${dispatchHref(part.dispatch)}">Dispatch ${part.dispatch}</a>`;
      return `<q class="member">${memberTextHtml(part.quote)}</q>`;
    })
    .join('');
}

export function sentenceMarkdown(parts: readonly SentencePart[], nameOf: NameOf, titleOf: TitleOf = no_titles): string {
  return parts
    .map((part) => {
      // Our words and the engine's values (enums, numbers, act names): only the quotes hold what members wrote.
      if (typeof part === 'string') return part;
      if ('agent' in part) return escapeMarkdownInline(mdAgent(nameOf(part.agent)));
      if ('motion' in part) {
        const title = titleOf(part.motion);
        const id = escapeMarkdownInline(part.motion);
        return title === null ? id : `“${escapeMarkdownInline(titleOr(title))}” (${id})`;
      }
      if ('tile' in part) return `(${part.tile.x}, ${part.tile.y})`;
      if ('entry' in part) return `entry ${part.entry}`;
      if ('dispatch' in part) return `Dispatch ${part.dispatch}`;
      return `“${escapeMarkdownInline(isolateBidiText(part.quote))}”`;
    })
    .join('');
}
