import { z } from 'zod';
import type { AetherMessage } from '../aether/aether_state.js';
import { defineRead, IsoTime, limitArg } from '../read.js';
import { isoAt, type EpochMs } from '../time.js';

export const aether_feed_limit_max = 200;

export const MessageSchema = z.object({
  message_id: z.int(),
  agent_id: z.string(),
  x: z.int(),
  y: z.int(),
  scope: z.string(),
  route: z.string(),
  /** Markdown as the member wrote it; the host adds body_html, rendered by render/ (the engine renders nothing). */
  body: z.string(),
  at: IsoTime,
});

export function messageData(message: AetherMessage): z.output<typeof MessageSchema> {
  const { message_id, agent_id, x, y, scope, route, body } = message;
  return { message_id, agent_id, x, y, scope, route, body, at: isoAt(message.at_ms) };
}

/** Selects a feed page, newest first, touching only the messages it returns (and any not yet published). */
export function feedPage(
  messages: readonly AetherMessage[],
  since_id: number | undefined,
  limit: number,
  now_ms: EpochMs,
): AetherMessage[] {
  const page: AetherMessage[] = [];
  if (since_id !== undefined) {
    // The first `limit` published messages after since_id; message n sits at index n - 1.
    for (let index = since_id; index < messages.length && page.length < limit; index++) {
      const message = messages[index]!;
      if (message.publish_at_ms > now_ms) break; // later ones wait too, so nothing is skipped for good
      page.push(message);
    }
    return page.reverse();
  }
  for (let index = messages.length - 1; index >= 0 && page.length < limit; index--) {
    if (messages[index]!.publish_at_ms <= now_ms) page.push(messages[index]!);
  }
  return page;
}

export function feedSchemaOf<M extends z.ZodType>(message: M) {
  return z.object({ messages: z.array(message), newest_id: z.int().nullable() });
}

/**
 * The Aether feed: published messages, newest first. With since_id it reads only the
 * messages after that id (ids index the history directly), never the whole history;
 * a message not yet at its publication moment is skipped, never dropped.
 */
export const aetherFeed = defineRead({
  name: 'aether_feed',
  title: 'Aether feed',
  summary: 'Published Aether messages, newest first; since_id reads only what came after (poll with newest_id).',
  path: '/api/v1/aether/feed',
  args: z.object({
    since_id: z
      .int()
      .min(0)
      .optional()
      .describe('Only messages after this message_id (the newest_id of your last read); absent: the newest'),
    limit: limitArg(aether_feed_limit_max, 50, 'messages'),
  }),
  response: { kind: 'json', schema: feedSchemaOf(MessageSchema) },
  view: ({ state, at_ms }, { since_id, limit }) => {
    const page = feedPage(state.aether.messages, since_id, limit, at_ms);
    return { messages: page.map(messageData), newest_id: page.length > 0 ? page[0]!.message_id : (since_id ?? null) };
  },
});
