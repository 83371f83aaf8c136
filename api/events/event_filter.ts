import { z } from 'zod';
import { entryTouchesChunk } from '../../client/ledger_positions.js';

/** Event types and actors are ids: short, plain, and few per filter. */
const EVENT_TYPE = /^[a-z0-9_]{1,64}$/;
const event_types_max = 32;

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
      (value) => value === undefined || value.split(',').every((type) => EVENT_TYPE.test(type)),
      'must be event types separated by commas',
    )
    .refine((value) => value === undefined || value.split(',').length <= event_types_max, `at most ${event_types_max}`),
  actor: z.string().min(1).max(128).optional().describe("Only entries whose actor is this agent id (or 'system')"),
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
