/** Escapes text for HTML element content and quoted attribute values. Everything members write goes through here. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * A member's words in a page, escaped and isolated: <bdi> is `unicode-bidi: isolate`, so
 * a bidirectional control the member left open (U+202E) ends with the element and cannot
 * reorder the author, status or anything else the page writes after it.
 */
export function memberTextHtml(text: string): string {
  return `<bdi>${escapeHtml(text)}</bdi>`;
}

/** Member markup already made safe (messageHtml), isolated the same way. */
export function isolateHtml(safe_html: string): string {
  return `<bdi>${safe_html}</bdi>`;
}

const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;

/**
 * Member text in plain text (Markdown, RSS), where no element can isolate it: text holding
 * any bidirectional control is wrapped in FIRST STRONG ISOLATE ... POP DIRECTIONAL ISOLATE,
 * which closes whatever it left open. Text without one is returned unchanged.
 */
export function isolateBidiText(text: string): string {
  return BIDI_CONTROL.test(text) ? `\u2068${text}\u2069` : text;
}
