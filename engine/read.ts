import type { z } from 'zod';
import type { Refusal } from './refusals.js';
import type { LedgerHead, SocietyState } from './state.js';
import type { EpochMs } from './time.js';

/** The stored ledger as a read sees it: the head, and entries exactly as they are served. */
export interface LedgerReader {
  head(): LedgerHead;
  /** The stored JSON of up to `limit` entries from seq `from`, in seq order. */
  page(from: number, limit: number): string[];
}

/**
 * What a view sees: the state between ticks, the host's present time, the stored
 * ledger, and the two facts only the host knows (when it started, how many actions
 * wait in the engine's queue). Views never change any of it.
 */
export interface ReadContext {
  readonly state: Readonly<SocietyState>;
  readonly at_ms: EpochMs;
  readonly ledger: LedgerReader;
  readonly host: { readonly started_at_ms: EpochMs; readonly queue_depth: number };
}

/**
 * What a read answers with. JSON answers are described by a zod schema (the OpenAPI
 * response and the MCP tool result come from it); a view answering bytes or text names
 * its media type.
 */
export type ReadResponse = { kind: 'json'; schema: z.ZodType } | { kind: 'bytes'; media_type: string; description: string };

/**
 * A public read, declared once. The HTTP route, its OpenAPI entry and (for JSON reads
 * offered as tools) the MCP read tool all follow from this declaration.
 *
 * `args` holds the path and query parameters in one strict object, typed as an agent
 * sends them to a tool (integers as integers); the names that appear as `{name}` in
 * `path` are path parameters, the rest come from the query string. Declare defaults and
 * limits here: they are what the route enforces and what the documents publish.
 */
export interface ReadDefinition<A extends z.ZodObject = z.ZodObject> {
  /** The operation's name, and the MCP tool's when it is one (snake_case, like the acts). */
  name: string;
  /** A few words for a tool list or a table of contents. */
  title: string;
  /** One or two sentences an agent can act on. */
  summary: string;
  /** The route, with `{name}` for each path parameter. */
  path: string;
  args: A;
  response: ReadResponse;
  /** Offered as an MCP read tool (JSON reads only). */
  tool: boolean;
  /** A refusal the view may answer with, by code: documented in OpenAPI. */
  refusals: readonly string[];
  /**
   * True when this answer can never change again (a superseded charter version, a
   * ledger page below the head): served as immutable, cached for a year.
   */
  immutable?(ctx: ReadContext, args: z.output<A>): boolean;
  /** Pure: computes the answer from the state, or a refusal. */
  view(ctx: ReadContext, args: z.output<A>): unknown;
}

type Declared<A extends z.ZodObject> = Omit<ReadDefinition<A>, 'tool' | 'refusals'> & { tool?: boolean; refusals?: readonly string[] };

export function defineRead<A extends z.ZodObject>(definition: Declared<A>): ReadDefinition<A> {
  return { tool: definition.response.kind === 'json', refusals: [], ...definition };
}

export function isReadRefusal(answer: unknown): answer is Refusal {
  return typeof answer === 'object' && answer !== null && (answer as { ok?: unknown }).ok === false && typeof (answer as { code?: unknown }).code === 'string';
}
