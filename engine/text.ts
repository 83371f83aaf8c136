import { z } from 'zod';

/**
 * What members may write. Their text is shown beside the society's own (the Founder's
 * Dispatch, a motion's author and status line), so it must not be able to start a line
 * of its own there or reorder what follows it.
 *
 * A one-line field (a title, a handle, a note) refuses every control character (C0, DEL,
 * C1: line breaks among them) and the Unicode line and paragraph separators. A multi-line
 * field (a motion body, an Aether message) keeps \n and \t and refuses the other control
 * characters (\r included: a line ends with \n alone). In both, a bidirectional control
 * that opens an embedding or override (U+202A, U+202B, U+202D, U+202E) must be closed by
 * U+202C, and one that opens an isolate (U+2066-U+2068) by U+2069, on the same line and
 * properly nested: an unclosed U+202E would flip whatever a reader's screen shows after
 * the member's text.
 */
const one_line_pattern = /^[^\u0000-\u001f\u007f-\u009f\u2028\u2029]*$/;
const multi_line_pattern = /^[^\u0000-\u0008\u000b-\u001f\u007f-\u009f]*$/;

const one_line_message =
  'must be one line: no line breaks or control characters (U+0000-U+001F, U+007F-U+009F, U+2028, U+2029)';
const multi_line_message =
  'must hold no control characters other than \\n and \\t (U+0000-U+0008, U+000B-U+001F, U+007F-U+009F)';
const bidi_message =
  'must close every bidirectional embedding or override (U+202A, U+202B, U+202D, U+202E) with U+202C and every isolate (U+2066-U+2068) with U+2069, nested, on the same line';

const EMBEDDING_OPENERS = new Set(['\u202a', '\u202b', '\u202d', '\u202e']);
const ISOLATE_OPENERS = new Set(['\u2066', '\u2067', '\u2068']);
const POP_EMBEDDING = '\u202c';
const POP_ISOLATE = '\u2069';

/** True when every line's bidirectional controls come in matched, nested pairs (a stray pop counts as unmatched). */
export function bidiControlsPaired(text: string): boolean {
  if (!/[\u202a-\u202e\u2066-\u2069]/.test(text)) return true;
  const open: string[] = [];
  for (const char of text) {
    if (char === '\n') {
      if (open.length > 0) return false;
    } else if (EMBEDDING_OPENERS.has(char)) {
      open.push(POP_EMBEDDING);
    } else if (ISOLATE_OPENERS.has(char)) {
      open.push(POP_ISOLATE);
    } else if (char === POP_EMBEDDING || char === POP_ISOLATE) {
      if (open.pop() !== char) return false;
    }
  }
  return open.length === 0;
}

/**
 * The one measure of every length limit on text (docs/protocol.md#lengths): Unicode code
 * points, what people and most languages count, so '😀' is one (two UTF-16 units, four
 * UTF-8 bytes). A lone surrogate, which a request cannot carry (it is `string_unicode`),
 * would count as one. Limits on bytes (a ledger entry's) stay bytes.
 */
export function codePointLength(text: string): number {
  let count = text.length;
  for (let i = 0; i < text.length - 1; i++) {
    if ((text.charCodeAt(i) & 0xfc00) === 0xd800 && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      count--;
      i++;
    }
  }
  return count;
}

/**
 * A zod check: at most max code points (codePointLength), refused as zod's own `too_big`
 * and shown in JSON Schema as `maxLength` (which counts code points too). Counted here
 * rather than left to `.max()`, whose measure is the zod release's to choose.
 */
export function codePointsAtMost(max: number) {
  const check = z.maxLength(max);
  check._zod.check = (payload) => {
    const input = payload.value as unknown;
    if (typeof input !== 'string' || codePointLength(input) <= max) return;
    payload.issues.push({ origin: 'string', code: 'too_big', maximum: max, inclusive: true, input, inst: check });
  };
  return check;
}

/** Any string of at most max code points: a handle, a name, an operator's detail. */
export function textAtMost(max: number) {
  return z.string().check(codePointsAtMost(max));
}

/** A title, a label, a note: one line, at most max_chars code points. Chain .min(1) or .default('') as the field needs. */
export function oneLineText(max_chars: number) {
  return textAtMost(max_chars).regex(one_line_pattern, one_line_message).refine(bidiControlsPaired, bidi_message);
}

/** A body or a message: lines joined by \n, at most max_chars code points. */
export function multiLineText(max_chars: number) {
  return textAtMost(max_chars).regex(multi_line_pattern, multi_line_message).refine(bidiControlsPaired, bidi_message);
}

const UNSAFE_IN_QUOTE = /[\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * Member text inside the society's own sentences (a Dispatch line, a chronicle item):
 * always in double quotes, as a JSON string, so quotes, backslashes and line breaks are
 * escaped and the member's words cannot end the quote, start a line or reorder the rest
 * of the line. Input checks refuse most of this already; the quote holds for anything
 * accepted before they existed.
 */
export function quoteMemberText(text: string): string {
  return JSON.stringify(text).replace(
    UNSAFE_IN_QUOTE,
    (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The society's own text for one line: any line break becomes a space. */
export function asOneLine(text: string): string {
  return text.replace(/\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/g, ' ');
}
