/**
 * A ledger entry as GET /api/v1/ledger serves it: one envelope, and per event type the
 * data schema of event_data.ts. The variants are made from EVENT_DATA, so an event
 * type declared there is served with its own schema without anything to add here.
 * Each schema carries a component id, so the OpenAPI document holds every entry
 * schema once, by name, however many answers hold entries.
 */
import { z } from 'zod';
import { IsoTime } from '../read.js';
import { EVENT_CATALOGUE, EVENT_TYPES, type EventType } from './event_catalogue.js';
import { EVENT_DATA } from './event_data.js';

const ProofSchema = z.union([
  z.object({ method: z.string(), path: z.string(), nonce: z.string(), body: z.string(), signature: z.string() }),
  z.object({ method: z.string(), path: z.string(), nonce: z.string(), body_sha256: z.string(), signature: z.string() }),
]);

type EntryOf<T extends EventType> = ReturnType<typeof entrySchemaOf<T>>;
type AnyEntry = { [T in EventType]: EntryOf<T> }[EventType];

function entrySchemaOf<T extends EventType>(event_type: T) {
  return z
    .object({
      seq: z.int(),
      prev_hash: z.string(),
      at: IsoTime,
      event_type: z.literal(event_type),
      actor: z.string(),
      data: EVENT_DATA[event_type],
      proof: ProofSchema.optional(),
      hash: z.string(),
    })
    .meta({ id: `${pascalCase(event_type)}Entry`, description: EVENT_CATALOGUE[event_type].summary });
}

function pascalCase(snake: string): string {
  return snake.replace(/(?:^|_)([a-z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

export const LedgerEntrySchema = z
  .discriminatedUnion('event_type', EVENT_TYPES.map(entrySchemaOf) as unknown as [AnyEntry, ...AnyEntry[]])
  .meta({
    id: 'LedgerEntry',
    description: 'A ledger entry: the same envelope for every event, its data by event_type',
  });
