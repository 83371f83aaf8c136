import type { Routes } from '../routes.js';
import { routeArgsParser } from '../read_mount.js';
import { ValidationError } from '../refusal_error.js';
import { entryFilter, EventStreamArgs, type EventStreamQuery } from './event_filter.js';
import type { EventHub } from './event_hub.js';
import type { EventStreamLimits } from './event_limits.js';
import { StreamGate } from './stream_gate.js';
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
    const resumed_after = lastSeenSeq(ctx.get('Last-Event-ID'));
    const from_seq = resumed_after === undefined ? query.from : resumed_after + 1;
    gate.open(ctx);
    const filtered = query.type !== undefined || query.actor !== undefined || query.chunk !== undefined;
    streams.ledger.subscribe(ctx.res, entryFilter(query), filtered, from_seq, query.actor, resumed_after);
  });
  router.get(WORLD_CHANGES_PATH, (ctx) => {
    gate.open(ctx);
    streams.world.subscribe(ctx.res);
  });
}

/** A reconnect's Last-Event-ID is the last seq it saw: it resumes from the next one. */
function lastSeenSeq(header: string): number | undefined {
  if (header === '') return undefined;
  if (!SEQ_TEXT.test(header))
    throw new ValidationError([
      { loc: ['header', 'last-event-id'], msg: 'must be the seq of the last event received', type: 'value_error' },
    ]);
  return Number(header);
}
