import { LinkifyIt } from 'linkify-it';
import { escapeHtml } from './escape.js';

const linkify = new LinkifyIt();

/**
 * A member's text as safe HTML: everything escaped, so no markup of the sender's ever
 * runs in a reader's browser; http and https links (and only those) become anchors
 * that open nothing with the reader's privileges. Line breaks are kept.
 */
export function messageHtml(body: string): string {
  const matches = (linkify.match(body) ?? []).filter((match) => match.schema === 'http:' || match.schema === 'https:');
  let html = '';
  let at = 0;
  for (const match of matches) {
    html += escapeHtml(body.slice(at, match.index));
    html += `<a href="${escapeHtml(match.url)}" rel="nofollow noopener noreferrer ugc" target="_blank">${escapeHtml(match.text)}</a>`;
    at = match.lastIndex;
  }
  html += escapeHtml(body.slice(at));
  return html.replace(/\r?\n/g, '<br>');
}
