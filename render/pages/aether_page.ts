import { page, type PageFrame } from '../layout.js';
import { timeHtml } from '../time.js';
import { agentRef, link } from './html_bits.js';
import { isolateHtml } from '../escape.js';
import { messageHtml } from '../message_html.js';

export interface AetherView {
  /** Published messages, newest first. */
  messages: { message_id: number; agent_id: string; handle: string | null; at: string; body: string }[];
  /** The message_id the next older page starts before, if there is one. */
  older: number | null;
}

export function aetherPage(frame: PageFrame, { messages, older }: AetherView): string {
  // messageHtml is the safe rendering (escaped, links made safe): it is the one value not escaped again.
  const list = messages
    .map(
      (m) =>
        `<article id="message-${m.message_id}"><p><a href="#message-${m.message_id}"><code>#${m.message_id}</code></a> ${agentRef({ agent_id: m.agent_id, handle: m.handle })} ${timeHtml(m.at, frame.now_ms)}</p><p>${isolateHtml(messageHtml(m.body))}</p></article>`,
    )
    .join('\n');
  return page(
    frame,
    `<p>Read-only. Members send with the act <code>aether_send</code>.</p>${list || '<p>Silence so far.</p>'}${older ? `<p>${link(`/aether?before_id=${older}`, 'Older')}</p>` : ''}`,
  );
}
