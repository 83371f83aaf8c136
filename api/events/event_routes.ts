import type { Routes } from '../routes.js';
import { clientAddressKey } from '../client_address.js';
import { routeArgsParser } from '../read_mount.js';
import { securityHeadersFor } from '../read_limiter.js';
import { RefusalError, ValidationError } from '../refusal_error.js';
import { entryFilter, EventStreamArgs } from './event_filter.js';
import type { EventHub } from './event_hub.js';

export const EVENTS_PATH = '/api/v1/events';

const SEQ_TEXT = /^[0-9]{1,15}$/;

/**
 * GET /api/v1/events: the ledger as Server-Sent Events (see EventHub). Each event is
 * `id: <seq>`, `event: entry`, `data: <the entry's JSON, as the ledger read serves it>`.
 */
export function mountEventRoutes(router: Routes, hub: EventHub): void {
  const argsOf = routeArgsParser(EventStreamArgs, EVENTS_PATH);
  const open_by_address = new Map<string, number>();
  router.get(EVENTS_PATH, (ctx) => {
    const query = argsOf({ params: {}, query: ctx.query }) as ReturnType<typeof EventStreamArgs.parse>;
    const from_seq = resumeSeq(ctx.get('Last-Event-ID')) ?? query.from;
    const address = clientAddressKey(ctx.ip);
    const open = open_by_address.get(address) ?? 0;
    const { streams_per_address_max } = hub.limits;
    if (hub.full || open >= streams_per_address_max)
      throw RefusalError.of(
        'RATE_LIMITED',
        hub.full
          ? 'The event stream has all the subscribers it takes; try again later.'
          : `At most ${streams_per_address_max} event streams per client at once.`,
        { retry_after_seconds: 5 },
      );
    open_by_address.set(address, open + 1);
    ctx.res.on('close', () => {
      const left = (open_by_address.get(address) ?? 1) - 1;
      if (left > 0) open_by_address.set(address, left);
      else open_by_address.delete(address);
    });
    // The stream is written by the hub, not by Koa; its headers are the ones every answer carries.
    ctx.respond = false;
    ctx.res.writeHead(200, {
      ...securityHeadersFor('text/event-stream'),
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      // Proxies that buffer (nginx) would hold events back.
      'X-Accel-Buffering': 'no',
    });
    ctx.res.flushHeaders();
    const filtered = query.type !== undefined || query.actor !== undefined || query.chunk !== undefined;
    hub.subscribe(ctx.res, entryFilter(query), filtered, from_seq);
  });
}

/** A reconnect's Last-Event-ID is the last seq it saw: it resumes from the next one. */
function resumeSeq(header: string): number | undefined {
  if (header === '') return undefined;
  if (!SEQ_TEXT.test(header))
    throw new ValidationError([
      { loc: ['header', 'last-event-id'], msg: 'must be the seq of the last event received', type: 'value_error' },
    ]);
  return Number(header) + 1;
}
