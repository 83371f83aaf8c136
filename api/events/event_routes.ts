import type { Context } from 'koa';
import type { Routes } from '../routes.js';
import { clientAddressKey } from '../client_address.js';
import { routeArgsParser } from '../read_mount.js';
import { securityHeadersFor } from '../read_limiter.js';
import { RefusalError, ValidationError } from '../refusal_error.js';
import { entryFilter, EventStreamArgs, type EventStreamQuery } from './event_filter.js';
import type { EventHub } from './event_hub.js';
import type { EventStreamLimits } from './event_limits.js';
import { WORLD_CHANGES_PATH, type WorldChanges } from './world_changes.js';

export const EVENTS_PATH = '/api/v1/events';

const SEQ_TEXT = /^[0-9]{1,15}$/;

/**
 * GET /api/v1/events, the ledger as Server-Sent Events (EventHub): each event `id: <seq>`,
 * `event: entry`, `data: <the entry's JSON, as the ledger read serves it>`. And GET
 * /api/v1/world/changes, the chunks each durable tick changed (WorldChanges).
 */
export function mountEventRoutes(
  router: Routes,
  streams: { ledger: EventHub; world: WorldChanges; limits: Readonly<EventStreamLimits> },
): void {
  const argsOf = routeArgsParser(EventStreamArgs, EVENTS_PATH);
  const gate = new StreamGate(streams.limits);
  router.get(EVENTS_PATH, (ctx) => {
    const query = argsOf({ params: {}, query: ctx.query }) as EventStreamQuery;
    const from_seq = resumeSeq(ctx.get('Last-Event-ID')) ?? query.from;
    gate.open(ctx);
    const filtered = query.type !== undefined || query.actor !== undefined || query.chunk !== undefined;
    streams.ledger.subscribe(ctx.res, entryFilter(query), filtered, from_seq, query.actor);
  });
  router.get(WORLD_CHANGES_PATH, (ctx) => {
    gate.open(ctx);
    streams.world.subscribe(ctx.res);
  });
}

/**
 * Admits a stream and writes its headers: at most subscribers_max open over all clients,
 * streams_per_address_max per client address (past either, 429 with Retry-After). The
 * stream is then written by its hub, not by Koa, with the headers every answer carries.
 */
class StreamGate {
  private readonly open_by_address = new Map<string, number>();
  private open_total = 0;

  constructor(private readonly limits: Readonly<EventStreamLimits>) {}

  open(ctx: Context): void {
    const address = clientAddressKey(ctx.ip);
    const open = this.open_by_address.get(address) ?? 0;
    if (this.open_total >= this.limits.subscribers_max)
      throw RefusalError.of('RATE_LIMITED', 'The service has all the event streams it takes; try again later.', {
        retry_after_seconds: 5,
      });
    if (open >= this.limits.streams_per_address_max)
      throw RefusalError.of(
        'RATE_LIMITED',
        `At most ${this.limits.streams_per_address_max} event streams per client at once.`,
        { retry_after_seconds: 5 },
      );
    this.open_by_address.set(address, open + 1);
    this.open_total += 1;
    ctx.res.on('close', () => {
      this.open_total -= 1;
      const left = (this.open_by_address.get(address) ?? 1) - 1;
      if (left > 0) this.open_by_address.set(address, left);
      else this.open_by_address.delete(address);
    });
    ctx.respond = false;
    ctx.res.writeHead(200, {
      ...securityHeadersFor('text/event-stream'),
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      // Proxies that buffer (nginx) would hold events back.
      'X-Accel-Buffering': 'no',
    });
    ctx.res.flushHeaders();
  }
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
