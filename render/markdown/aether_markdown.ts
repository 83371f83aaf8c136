import { markdown, mdAgent, mdQuote } from './blocks.js';
import { timeText } from '../time.js';
import type { AetherView } from '../pages/aether_page.js';

/** Each message a blockquote, each of its lines escaped after the `> `. */
export function aetherMarkdown({ messages, older }: AetherView, now_ms: number): string {
  if (messages.length === 0) return markdown('The Aether', ['Silence so far.']);
  const list = messages.flatMap((m) => [
    `**#${m.message_id}** ${mdAgent({ agent_id: m.agent_id, handle: m.handle })}, ${timeText(m.at, now_ms)}`,
    '',
    mdQuote(m.body),
    '',
  ]);
  return markdown('The Aether', [...list, ...(older ? [`Older: /aether.md?before_id=${older}`] : [])]);
}
