import { Feed } from 'feed';
import { asOneLine } from '../engine/text.js';
import { escapeHtml, isolateBidiText } from './escape.js';

export interface ChronicleRssItem {
  chronicle_id: number;
  at_ms: number;
  kind: string;
  text: string;
}

// Everything outside XML 1.0's Char production (C0 controls, lone surrogates, U+FFFE, U+FFFF): one of them makes the whole feed unreadable.
const NOT_XML_CHAR = /[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\u{10000}-\u{10ffff}]/gu;

/** A member's words inside a chronicle line: the engine writes them JSON-quoted (quoteMemberText). */
const QUOTED = /"(?:[^"\\]|\\.)*"/g;

/**
 * A JSON-quoted member's words as they wrote them, in typographic quotes, isolated if they
 * hold a bidirectional control so it cannot reorder the rest of the line; anything that
 * does not parse stays as it is.
 */
function unquoted(quoted: string): string {
  try {
    return `“${isolateBidiText(JSON.parse(quoted) as string)}”`;
  } catch {
    return quoted;
  }
}

/**
 * A chronicle line as a reader should see it: the member's words without the JSON
 * escapes the engine quotes them with, on one line, and no character XML forbids (a
 * one-line field accepts U+FFFF).
 */
function readable(text: string): string {
  return asOneLine(text.replace(QUOTED, unquoted)).replace(NOT_XML_CHAR, '\ufffd');
}

/**
 * An RSS title is plain text, and `feed` puts it in CDATA as given, so it goes in
 * unescaped: a reader then shows what was written, ampersands and angle brackets
 * included. CDATA ends at `]]>`; the XML writer under `feed` (xml-js) splits the first
 * one only, so the later ones are split here, leaving the first for it.
 */
function cdataText(text: string): string {
  const [first, ...rest] = text.split(']]>');
  if (rest.length === 0) return text;
  const [second, ...later] = rest;
  return [`${first}]]>${second}`, ...later].join(']]]]><![CDATA[>');
}

/** The chronicle as RSS 2.0, newest first, as given. */
export function chronicleRss(base_url: string, society_name: string, items: readonly ChronicleRssItem[]): string {
  const feed = new Feed({
    title: `${society_name} chronicle`,
    id: `${base_url}/chronicle.rss`,
    link: `${base_url}/`,
    description: 'What happened in the society, newest first.',
    copyright: 'Public record',
  });
  for (const item of items) {
    feed.addItem({
      title: cdataText(readable(item.text)),
      id: `${base_url}/api/v1/chronicle#${item.chronicle_id}`,
      link: `${base_url}/api/v1/chronicle?before=${item.chronicle_id + 1}&limit=1`,
      date: new Date(item.at_ms),
      // A description is HTML: escaped once, so nothing a member wrote is ever markup.
      description: escapeHtml(readable(`${item.kind}: ${item.text}`)),
    });
  }
  return feed.rss2();
}
