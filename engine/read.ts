import { z } from 'zod';
import type { RefusalCode } from './refusals.js';
import type { LedgerHead, SocietyState } from './state.js';
import type { EpochMs } from './time.js';
import type { Receipt } from '../client/tlog/receipt.js';

/** A moment as every answer writes it (engine/time.ts isoAt): UTC, milliseconds, offset +00:00. */
export const IsoTime = z.iso.datetime({ offset: true, precision: 3 });

/** A read's page size, described as a model reads a tool's arguments: what it counts, its range and default. */
export function limitArg(max: number, fallback: number, items: string) {
  return z
    .int()
    .min(1)
    .max(max)
    .default(fallback)
    .describe(`How many ${items} to return at most, 1 to ${max} (default ${fallback})`);
}

/** The stored ledger as a read sees it: the head, and entries exactly as they are served. */
export interface LedgerReader {
  head(): LedgerHead;
  /** The stored JSON of up to `limit` entries from seq `from`, in seq order. */
  page(from: number, limit: number): string[];
}

/** A chunk's binary and its content hash (an ETag, quoted). Encoding is costly, so the host keeps them. */
export interface ChunkSource {
  get(chunk_x: number, chunk_y: number): BytesAnswer;
}

/**
 * What a view sees: the state between ticks, the host's present time, the stored
 * ledger, the encoded chunks, and the two facts only the host knows (when it started,
 * how many actions wait in the engine's queue). Views never change any of it.
 */
/** The transparency log's identity and newest signed size, as the host keeps them (the engine signs nothing). */
export interface LogHead {
  readonly origin: string;
  /** The note verifier key checkpoints are signed with. */
  readonly verifier_key: string;
  readonly checkpoint: { readonly size: number; readonly root_hash: string };
}

export interface ReadContext {
  readonly state: Readonly<SocietyState>;
  readonly at_ms: EpochMs;
  readonly ledger: LedgerReader;
  readonly chunks: ChunkSource;
  readonly host: {
    readonly started_at_ms: EpochMs;
    readonly queue_depth: number;
    /** Asked for only by the reads that show it: it may sign a checkpoint. */
    log(): LogHead;
    /**
     * An entry's receipt (its inclusion proof to the newest checkpoint), or undefined before a checkpoint covers it;
     * `entry_json` is the entry as stored, when the caller has read it already.
     */
    receipt(seq: number, entry_json?: string): Receipt | undefined;
  };
}

/**
 * What a read answers with. JSON answers are described by a zod schema (the OpenAPI
 * response and the MCP tool result come from it); a view answering bytes names its
 * media type and returns a BytesAnswer.
 */
export type ReadResponse =
  | { kind: 'json'; schema: z.ZodType }
  | { kind: 'bytes'; media_type: string; description: string };

/** The answer of a bytes read. With an etag, a client that holds it is answered 304 without a body. */
export interface BytesAnswer {
  body: Uint8Array;
  etag?: string;
}

/**
 * A public read, declared once. The HTTP route, its OpenAPI entry and (for JSON reads
 * offered as tools) the MCP read tool all follow from this declaration.
 *
 * `args` holds the path and query parameters in one object, typed as an agent sends
 * them to a tool (integers as integers); the names that appear as `{name}` in `path`
 * are path parameters, the rest come from the query string. Declare defaults and
 * limits here: they are what the route enforces and what the documents publish.
 */
export interface ReadDefinition<A extends z.ZodObject = z.ZodObject, R = unknown> {
  /** The operation's name, and the MCP tool's when it is one (snake_case, like the acts). */
  name: string;
  /** A few words for a tool list or a table of contents. */
  title: string;
  /** One or two sentences an agent can act on. */
  summary: string;
  /** The route, with `{name}` for each path parameter. */
  path: string;
  /** Other routes answering exactly the same (the specification names some reads twice). */
  aliases: readonly string[];
  args: A;
  response: ReadResponse;
  /** Offered as an MCP read tool (JSON reads only). */
  tool: boolean;
  /** The refusals the view may answer with, by code: documented in OpenAPI. */
  refusals: readonly RefusalCode[];
  /**
   * True when this answer can never change again (a superseded charter version, a
   * ledger page below the head): served as immutable, cached for a year.
   */
  immutable?(ctx: ReadContext, args: z.output<A>): boolean;
  /** Pure: computes the answer from the context, or a refusal. */
  view(ctx: ReadContext, args: z.output<A>): R;
}

type Declared<A extends z.ZodObject, R> = Omit<ReadDefinition<A, R>, 'tool' | 'refusals' | 'aliases'> &
  Partial<Pick<ReadDefinition<A, R>, 'tool' | 'refusals' | 'aliases'>>;

/** A read with the usual defaults: a tool when it answers JSON, no refusals, no aliases. */
export function defineRead<A extends z.ZodObject, R>(definition: Declared<A, R>): ReadDefinition<A, R> {
  return { tool: definition.response.kind === 'json', refusals: [], aliases: [], ...definition };
}
