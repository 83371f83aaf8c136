import { asOneLine } from '../engine/text.js';
import { isolateBidiText } from './escape.js';

// Anywhere in a line: emphasis, code spans, links and images, raw HTML and entities, tables, strikethrough, ATX closing hashes.
const INLINE_SPECIALS = /[\\`*[\]<>&|~!#]/g;
// An underscore between two letters or digits never opens or closes emphasis (CommonMark), so ids like ag_0123 stay as they are.
const EMPHASIS_UNDERSCORE = /(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;
// Only at the start of a line: list bullets, setext underlines, and the dot or parenthesis of an ordered list item.
const LINE_START_BULLET = /^(\s*)([+\-=])/;
const LINE_START_ORDINAL = /^(\s*\d{1,9})([.)])/;
// Control characters (tab aside) have no business in a rendering; input refuses them, this covers older records.
const CONTROLS = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/**
 * Text a member wrote, as literal Markdown on one line: every line break becomes a space
 * and every character that could open a heading, list, quote, link, image, HTML, emphasis,
 * code span or fence, or table cell is backslash-escaped (CommonMark treats any escaped
 * ASCII punctuation as itself). The result can sit anywhere in a line, a heading
 * included, and renders as exactly the member's characters.
 */
export function escapeMarkdownInline(text: string): string {
  const line = asOneLine(text).replace(CONTROLS, '\uFFFD');
  const escaped = line
    .replace(INLINE_SPECIALS, '\\$&')
    .replace(EMPHASIS_UNDERSCORE, '\\_')
    .replace(LINE_START_BULLET, '$1\\$2')
    .replace(LINE_START_ORDINAL, '$1\\$2');
  return isolateBidiText(escaped);
}

/** Multi-line member text, line by line, each line escaped as above. */
export function escapeMarkdownLines(text: string): string[] {
  return text.split(/\r\n|\n|\r/).map(escapeMarkdownInline);
}
