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

/**
 * Feed readers show an item's title and description as HTML, and `feed` puts both in
 * CDATA as given (escaping only the first `]]>`): CDATA is not escaping. So the text,
 * which quotes what members wrote, goes in as escaped plain text, on one line and
 * isolated if it holds a bidirectional control. Nothing in it is ever markup, and a
 * character XML forbids (a one-line field accepts U+FFFF) becomes U+FFFD.
 */
function rssText(text: string): string {
  return escapeHtml(isolateBidiText(asOneLine(text))).replace(NOT_XML_CHAR, '\ufffd');
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
      title: rssText(item.text),
      id: `${base_url}/api/v1/chronicle#${item.chronicle_id}`,
      link: `${base_url}/api/v1/chronicle?before=${item.chronicle_id + 1}&limit=1`,
      date: new Date(item.at_ms),
      description: rssText(`${item.kind}: ${item.text}`),
    });
  }
  return feed.rss2();
}
