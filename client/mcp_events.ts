import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  ListResourceTemplatesRequestSchema,
  ListResourcesRequestSchema,
  ReadResourceRequestSchema,
  SubscribeRequestSchema,
  UnsubscribeRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { FollowOptions } from './event_stream.js';
import type { WireEntry } from './ledger_check.js';
import type { TesseraClient } from './sdk.js';
import { READ_ANNOTATIONS } from './tool_annotations.js';
import type { Tool } from './tools.js';

/** The tools only the stdio bridge offers: they follow the event stream, which a stateless HTTP call cannot. */
export const BRIDGE_STREAM_TOOLS = ['wait_for_events'] as const;

/** What each of them does, as the bridge lists it and /.well-known/mcp.json names it. */
export const BRIDGE_STREAM_DESCRIPTIONS: Record<(typeof BRIDGE_STREAM_TOOLS)[number], string> = {
  wait_for_events:
    'Waits until ledger entries matching the filters arrive (or timeout_seconds pass) and returns them soon after the first, with next_after_seq to pass next time. ' +
    'Without after_seq it waits for entries committed from now on; the entries it skipped by filter are behind next_after_seq too. Filters: types (event types), actor (an agent id), chunk ({chunk_x, chunk_y}).',
};

/** The newest entries of the ledger. */
export const LEDGER_RESOURCE = 'tessera://ledger/recent';
/** The entries an agent is the actor of, as the bridge saw them arrive. */
export const ownEventsResource = (agent_id: string) => `tessera://agents/${agent_id}/events`;

const chunkWords = (axis: 'x' | 'y') =>
  `Chunk ${axis}, 0 to 31: a chunk is 64 x 64 tiles, so it is the absolute tile ${axis} divided by 64, rounded down.`;

/** Entries a resource holds: the newest ones. */
const entries_kept = 50;
const wait_seconds_max = 60;
const wait_entries_max = 100;
/** After the first entry a wait answers within this long, taking what else arrives meanwhile. */
const gather_ms = 200;

/**
 * The society's events for an MCP client of the stdio bridge, without polling: the
 * ledger and the agent's own entries as resources a client subscribes to (each new entry
 * sends notifications/resources/updated, and a read gives the newest entries), both fed
 * by the server's event stream (GET /api/v1/events, client.follow).
 */
export class EventResources {
  private readonly kept = new Map<string, WireEntry[]>();
  private readonly following = new Map<string, AbortController>();
  private readonly subscribed = new Set<string>();
  private notify: (uri: string) => void = () => undefined;

  constructor(
    private readonly client: TesseraClient,
    private readonly agent_id: string,
  ) {}

  get uris(): string[] {
    return [LEDGER_RESOURCE, ownEventsResource(this.agent_id)];
  }

  /** Serves the resources on an MCP server declared with the resources capability (subscribe: true). */
  attach(server: Server): void {
    this.notify = (uri) => void server.sendResourceUpdated({ uri }).catch(() => undefined);
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({
      resources: [
        {
          uri: LEDGER_RESOURCE,
          name: 'ledger',
          title: 'The ledger, newest entries',
          description: `The newest ${entries_kept} ledger entries. Subscribe to hear of each new one.`,
          mimeType: 'application/json',
        },
        {
          uri: ownEventsResource(this.agent_id),
          name: 'my-events',
          title: 'My events',
          description: `The newest ${entries_kept} entries this agent is the actor of, since the bridge started. Subscribe to hear of each new one.`,
          mimeType: 'application/json',
        },
      ],
    }));
    // Both resources are fixed addresses: there is no template to fill in, and the specification's answer for that is an empty list.
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({ resourceTemplates: [] }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => ({
      contents: [
        {
          uri: request.params.uri,
          mimeType: 'application/json',
          text: JSON.stringify(await this.read(request.params.uri)),
        },
      ],
    }));
    server.setRequestHandler(SubscribeRequestSchema, async (request) => {
      this.subscribe(request.params.uri);
      return {};
    });
    server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
      this.subscribed.delete(request.params.uri);
      if (request.params.uri === LEDGER_RESOURCE) this.stop(LEDGER_RESOURCE);
      return {};
    });
    // One's own entries are kept from the start, so the resource has them whenever it is read.
    this.follow(ownEventsResource(this.agent_id), { actor: this.agent_id });
  }

  async read(uri: string): Promise<{ entries: WireEntry[] }> {
    if (uri === LEDGER_RESOURCE) {
      const { head } = await this.client.get<{ head: { seq: number } }>('/api/v1/ledger?from=1&limit=1');
      const from = Math.max(1, head.seq - entries_kept + 1);
      return {
        entries: (await this.client.get<{ entries: WireEntry[] }>(`/api/v1/ledger?from=${from}&limit=${entries_kept}`))
          .entries,
      };
    }
    if (uri === ownEventsResource(this.agent_id)) return { entries: [...(this.kept.get(uri) ?? [])] };
    throw new Error(`There is no resource ${uri}; list them with resources/list.`);
  }

  subscribe(uri: string): void {
    if (!this.uris.includes(uri)) throw new Error(`There is no resource ${uri}; list them with resources/list.`);
    this.subscribed.add(uri);
    if (uri === LEDGER_RESOURCE) this.follow(LEDGER_RESOURCE, {});
  }

  close(): void {
    for (const uri of [...this.following.keys()]) this.stop(uri);
  }

  private follow(uri: string, options: FollowOptions): void {
    if (this.following.has(uri)) return;
    const controller = new AbortController();
    this.following.set(uri, controller);
    void (async () => {
      for await (const entry of this.client.follow({ ...options, signal: controller.signal })) {
        const kept = this.kept.get(uri) ?? [];
        kept.push(entry);
        if (kept.length > entries_kept) kept.shift();
        this.kept.set(uri, kept);
        if (this.subscribed.has(uri)) this.notify(uri);
      }
    })().catch(() => undefined);
  }

  private stop(uri: string): void {
    this.following.get(uri)?.abort();
    this.following.delete(uri);
  }
}

/**
 * For a client without resource subscriptions: waits for entries matching a filter, up
 * to a time limit, and answers what arrived (maybe none), with the seq to pass as
 * after_seq next time so nothing is missed between calls.
 */
export function waitForEventsTool(client: TesseraClient): Tool {
  return {
    name: 'wait_for_events',
    title: 'Wait for events',
    description: BRIDGE_STREAM_DESCRIPTIONS.wait_for_events,
    annotations: READ_ANNOTATIONS,
    inputSchema: {
      type: 'object',
      properties: {
        types: {
          type: 'array',
          items: { type: 'string', pattern: '^[a-z0-9_]{1,64}$' },
          maxItems: 32,
          description:
            'Only entries of these event types (as agent_registered, vote_cast); leave it out for every type.',
        },
        actor: {
          type: 'string',
          maxLength: 128,
          description: 'Only entries this agent id (ag_ and 16 hex digits) is the actor of.',
        },
        chunk: {
          type: 'object',
          description: 'Only entries that touch this chunk of the world.',
          properties: {
            chunk_x: { type: 'integer', minimum: 0, maximum: 31, description: chunkWords('x') },
            chunk_y: { type: 'integer', minimum: 0, maximum: 31, description: chunkWords('y') },
          },
          required: ['chunk_x', 'chunk_y'],
          additionalProperties: false,
        },
        after_seq: {
          type: 'integer',
          minimum: 0,
          description:
            'Answer entries with a seq (ledger position) above this one: the next_after_seq of your last call. Leave it out to wait for entries from now on.',
        },
        limit: {
          type: 'integer',
          minimum: 1,
          maximum: wait_entries_max,
          default: 20,
          description: `The most entries one answer holds, 1 to ${wait_entries_max}.`,
        },
        timeout_seconds: {
          type: 'integer',
          minimum: 1,
          maximum: wait_seconds_max,
          default: 25,
          description: `How long to wait for a first entry, 1 to ${wait_seconds_max} seconds; then it answers with none and timed_out true.`,
        },
      },
      additionalProperties: false,
    },
    signed: false,
    proof_of_machine: false,
    call: async (args) => {
      const limit = Math.min(wait_entries_max, Number(args.limit ?? 20));
      const timeout_ms = Math.min(wait_seconds_max, Number(args.timeout_seconds ?? 25)) * 1000;
      // Without after_seq, from the head now: the answer's next_after_seq then leaves no gap to the next call.
      const after_seq =
        args.after_seq === undefined
          ? (await client.get<{ head: { seq: number } }>('/api/v1/ledger?from=1&limit=1')).head.seq
          : Number(args.after_seq);
      const controller = new AbortController();
      let timer = setTimeout(() => controller.abort(), timeout_ms);
      const entries: WireEntry[] = [];
      try {
        for await (const entry of client.follow({
          from: after_seq + 1,
          ...(Array.isArray(args.types) ? { types: args.types as string[] } : {}),
          ...(typeof args.actor === 'string' ? { actor: args.actor } : {}),
          ...(args.chunk ? { chunk: args.chunk as { chunk_x: number; chunk_y: number } } : {}),
          signal: controller.signal,
        })) {
          entries.push(entry);
          if (entries.length >= limit) break;
          // Something arrived: answer soon, with whatever else comes in the same moment.
          if (entries.length === 1) {
            clearTimeout(timer);
            timer = setTimeout(() => controller.abort(), gather_ms);
          }
        }
      } finally {
        clearTimeout(timer);
        controller.abort();
      }
      const next_after_seq = entries.at(-1)?.seq ?? after_seq;
      return { entries, next_after_seq, timed_out: entries.length === 0 };
    },
  };
}
