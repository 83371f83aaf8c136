import { XMLParser, XMLValidator } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { quoteMemberText } from '../engine/text.js';
import { chronicleRss } from '../render/chronicle_rss.js';

/** What a member wrote: quotes, an ampersand, angle brackets, a backslash and CDATA's end twice. */
const WRITTEN = 'Tom & "Jerry\'s" <b>plan</b> \\ ]]> then ]]> again';

const parsed = (rss: string) =>
  [new XMLParser({ parseTagValue: false }).parse(rss).rss.channel.item].flat() as {
    title: string;
    description: string;
  }[];

/** HTML's character references back to characters, as a reader showing a description does. */
const decodeHtml = (html: string) => html.replace(/&#(\d+);/g, (_, code: string) => String.fromCharCode(Number(code)));

describe('the chronicle RSS titles', () => {
  const rss = chronicleRss('http://society.test', 'Test', [
    {
      chronicle_id: 7,
      at_ms: Date.parse('2026-11-21T10:00:00Z'),
      kind: 'motion_filed',
      text: `M-0001-abcd filed: ${quoteMemberText(WRITTEN)}`,
    },
  ]);

  it('is well-formed XML', () => {
    expect(XMLValidator.validate(rss)).toBe(true);
  });

  it("shows a member's words as written, escaped once: no &#34; and no backslash escapes", () => {
    const [item] = parsed(rss);
    expect(item!.title).toBe(`M-0001-abcd filed: “${WRITTEN}”`);
  });

  it('keeps the description HTML, escaped once, so it reads as the same words and is never markup', () => {
    const [item] = parsed(rss);
    expect(item!.description).not.toMatch(/<[a-z/!]/i);
    expect(decodeHtml(item!.description)).toBe(`motion_filed: M-0001-abcd filed: “${WRITTEN}”`);
  });
});
