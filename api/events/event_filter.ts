import { z } from 'zod';
import { eventClass } from '../../client/ledger_events.js';
import { entryTouchesChunk } from '../../client/ledger_positions.js';
import { AGENT_ID_PATTERN } from '../../engine/index.js';

/** Few types per filter: more than the ledger is ever asked for at once. */
const event_types_max = 32;

/**
 * The ledger's event types are the ones its recipe classes (client/ledger_events.ts, where
 * every type the engine emits must be classed): a type outside it would match nothing, and
 * a stream filtered on a misspelt type would deliver nothing forever, so it is refused.
 */
const isEventType = (type: string) => eventClass(type) !== undefined;

/** An entry's actor is an agent id or the system. */
const isActor = (actor: string) => actor === 'system' || AGENT_ID_PATTERN.test(actor);

/**
 * The stream's query, parsed like any read's (422 naming the parameter). `from` is the
 * first seq wanted; a reconnecting browser's Last-Event-ID (the last seq it saw) wins over it.
 */
export const EventStreamArgs = z.object({
  from: z.int().min(1).optional().describe('The first seq to send (default: only entries committed from now on)'),
  type: z
    .string()
    .optional()
    .describe(`Event types to send, comma-separated (at most ${event_types_max})`)
    .refine(
      (value) => value === undefined || value.split(',').every(isEventType),
      "must be the ledger's event types (agent_registered, vote_cast, ...), separated by commas",
    )
    .refine((value) => value === undefined || value.split(',').length <= event_types_max, `at most ${event_types_max}`),
  actor: z
    .string()
    .refine(isActor, "must be an agent id (ag_ followed by 16 lowercase hex digits) or 'system'")
    .optional()
    .describe("Only entries whose actor is this agent id (or 'system')"),
  chunk: z
    .string()
    .regex(/^([0-9]|[12][0-9]|3[01]),([0-9]|[12][0-9]|3[01])$/, 'must be chunk_x,chunk_y, each 0-31')
    .optional()
    .describe('Only entries naming a tile of this chunk, as chunk_x,chunk_y'),
});

export type EventStreamQuery = z.output<typeof EventStreamArgs>;

/** The part of an entry a filter looks at. */
export interface FilterableEntry {
  event_type: string;
  actor: string;
  data: unknown;
}

export type EntryFilter = (entry: FilterableEntry) => boolean;

/** One predicate from the query's filters; no filter passes everything. */
export function entryFilter(query: EventStreamQuery): EntryFilter {
  const types = query.type === undefined ? undefined : new Set(query.type.split(','));
  const chunk = query.chunk?.split(',').map(Number) as [number, number] | undefined;
  const { actor } = query;
  return (entry) =>
    (types === undefined || types.has(entry.event_type)) &&
    (actor === undefined || entry.actor === actor) &&
    (chunk === undefined || entryTouchesChunk(entry.data, chunk[0], chunk[1]));
}
