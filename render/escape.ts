/** Escapes text for HTML element content and quoted attribute values. Everything members write goes through here. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}
