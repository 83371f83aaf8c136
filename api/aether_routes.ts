import type { Routes } from './routes.js';
import { z } from 'zod';
import type { AetherMessage } from '../engine/aether/aether_state.js';
import type { Engine } from '../engine/engine.js';
import { isoAt } from '../engine/time.js';
import { messageHtml } from '../render/message_html.js';
import { parseOrThrow, queryInt, queryLimit } from './parse.js';

export const aether_feed_limit_max = 200;

const FeedQuery = z.object({ since_id: queryInt.optional(), limit: queryLimit(50, aether_feed_limit_max) });

export function messageView(message: AetherMessage) {
  return {
    message_id: message.message_id,
    agent_id: message.agent_id,
    x: message.x,
    y: message.y,
    scope: message.scope,
    route: message.route,
    body: message.body,
    at: isoAt(message.at_ms),
    body_html: messageHtml(message.body),
  };
}

/**
 * The Aether feed: published messages, newest first. With since_id it reads only the
 * messages after that id (ids index the history directly), never the whole history;
 * a message not yet at its publication moment is skipped, never dropped.
 */
export function mountAetherRoutes(router: Routes, { engine, clock }: { engine: Engine; clock: () => number }): void {
  router.get('/api/v1/aether/feed', (ctx) => {
    const { since_id, limit } = parseOrThrow(FeedQuery, ctx.query, ['query']);
    const page = feedPage(engine.state.aether.messages, since_id, limit, clock());
    ctx.body = { messages: page.map(messageView), newest_id: page.length > 0 ? page[0]!.message_id : (since_id ?? null) };
  });
}

/** Selects a feed page, newest first, touching only the messages it returns (and any not yet published). */
export function feedPage(messages: readonly AetherMessage[], since_id: number | undefined, limit: number, now_ms: number): AetherMessage[] {
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
