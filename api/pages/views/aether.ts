import type { AetherView } from '../../../render/pages/aether_page.js';
import { feedPage, type ReadContext, isoAt } from '../../../engine/index.js';

import { nameOf } from './names.js';
import { page_size } from './paging.js';

export function aetherView({ state, at_ms }: ReadContext, { before_id }: { before_id?: number }): AetherView {
  const messages = state.aether.messages;
  const upto = before_id === undefined ? messages : messages.slice(0, Math.max(0, before_id - 1));
  const shown = feedPage(upto, undefined, page_size, at_ms).map((m) => ({
    message_id: m.message_id,
    agent_id: m.agent_id,
    handle: nameOf(state, m.agent_id).handle,
    at: isoAt(m.at_ms),
    body: m.body,
  }));
  return { messages: shown, older: shown.length === page_size ? shown.at(-1)!.message_id : null };
}
