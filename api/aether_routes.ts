import { z } from 'zod';
import { messageHtml } from '../render/message_html.js';
import {
  type AetherMessage,
  type ReadDefinition,
  aetherFeed,
  feedSchemaOf,
  messageData,
  MessageSchema,
} from '../engine/index.js';

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
