import { z } from 'zod';
import type { AetherMessage } from '../engine/aether/aether_state.js';
import type { ReadDefinition } from '../engine/read.js';
import { aetherFeed, feedSchemaOf, messageData, MessageSchema } from '../engine/reads/aether.js';
import { messageHtml } from '../render/message_html.js';

// Moved to engine/reads/aether.ts; re-exported for api/pages and bench until their imports move.
export { aether_feed_limit_max, feedPage } from '../engine/reads/aether.js';

type MessageData = z.output<typeof MessageSchema>;

function withBodyHtml(message: MessageData) {
  return { ...message, body_html: messageHtml(message.body) };
}

/** A message as served: the engine's data and its body as safe HTML, rendered by render/ (never by the engine). */
export function messageView(message: AetherMessage) {
  return withBodyHtml(messageData(message));
}

/** The aether_feed read as served: the engine's view, each message with its body_html. */
export const servedAetherFeed: ReadDefinition = {
  ...aetherFeed,
  response: { kind: 'json', schema: feedSchemaOf(MessageSchema.extend({ body_html: z.string() })) },
  view: (ctx, args) => {
    const feed = aetherFeed.view(ctx, args as never);
    return { ...feed, messages: feed.messages.map(withBodyHtml) };
  },
};
