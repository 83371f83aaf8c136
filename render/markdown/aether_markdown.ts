import { markdown, mdQuote } from './blocks.js';
import type { AetherView } from '../pages/aether_page.js';

/** Each message a blockquote, each of its lines escaped after the `> `. */
export function aetherMarkdown({ messages, older }: AetherView): string {
  if (messages.length === 0) return markdown('The Aether', ['Silence so far.']);
  const list = messages.flatMap((m) => [`**#${m.message_id}** ${m.agent_id} at ${m.at}`, '', mdQuote(m.body), '']);
  return markdown('The Aether', [...list, ...(older ? [`Older: /aether.md?before_id=${older}`] : [])]);
}
