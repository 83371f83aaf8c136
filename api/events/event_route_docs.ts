import type { RouteDoc } from '../route_docs.js';
import { EventStreamArgs } from './event_filter.js';
import { EVENT_STREAM_LIMITS } from './event_limits.js';
import { EVENTS_PATH } from './event_routes.js';
import { WORLD_CHANGES_PATH } from './world_changes.js';

const { heartbeat_seconds, buffer_bytes_max, socket_write_bytes_max, stall_seconds, streams_per_address_max } =
  EVENT_STREAM_LIMITS;
const STREAM_BOUNDS =
  `A comment line every ${heartbeat_seconds} s keeps an idle stream open. A live stream with ` +
  `${buffer_bytes_max / 1024} KiB waiting for its client is cut off: the events still queued are discarded, and ` +
  `its last event, \`dropped\`, follows at most the ${socket_write_bytes_max / 1024} KiB already handed to the ` +
  `connection (and what the network holds). A client that reads nothing for ${stall_seconds} s is reset, without ` +
  `\`dropped\`; so is one that has not read to the end ${stall_seconds} s after its last byte was sent. A stream ` +
  'counts from the moment it is accepted, backlog or live, until its connection closes: at most ' +
  `${streams_per_address_max} per client address; past it, or when the service holds all it takes, 429.`;

/** The OpenAPI entries of the two event streams, their bounds stated from the one limits object. */
export const EVENT_ROUTE_DOCS: readonly RouteDoc[] = [
  {
    method: 'GET',
    path: EVENTS_PATH,
    summary: 'The ledger as Server-Sent Events: each entry once its tick is durable, resumable, filterable',
    description:
      'Each event is `id: <seq>`, `event: entry`, `data: <the entry JSON exactly as GET /api/v1/ledger serves it>`. ' +
      'Resume with the Last-Event-ID header (the last seq received; browsers send it when they reconnect) or ' +
      '`from` (the first seq wanted); without either, only entries committed from now on. ' +
      STREAM_BOUNDS +
      ' A stream cut off ends with `dropped`, `{"reason": "slow_reader", "resume_from": <seq>}`: reconnect with ' +
      '`from` set to resume_from (everything before it was sent). A stream that ends without it (a reset, a ' +
      'restart) resumes with Last-Event-ID, the last seq received. A Last-Event-ID past the head was seen in a ' +
      'history a restore rewound: the stream first sends `rewritten`, `{"rewritten_from": <seq>, "last_event_id": ' +
      '<seq>}`, and goes on from rewritten_from.',
    args: EventStreamArgs,
    answers: [{ status: 200, media_type: 'text/event-stream', description: 'The stream' }],
    refusals: ['VALIDATION_FAILED', 'RATE_LIMITED'],
  },
  {
    method: 'GET',
    path: WORLD_CHANGES_PATH,
    summary: 'The chunks each durable tick changed, with their new ETags, as Server-Sent Events',
    description:
      'Each event is `event: chunks`, `data: {"seq", "chunks": [{"chunk_x", "chunk_y", "etag"}]}`: refetch those ' +
      'chunks (or compare the ETag with yours). No history: on connecting, revalidate the chunks you show ' +
      '(If-None-Match answers 304 for the unchanged). ' +
      STREAM_BOUNDS +
      ' A stream cut off ends with `dropped`, `{"reason", "revalidate": true}`; any end means revalidating.',
    answers: [{ status: 200, media_type: 'text/event-stream', description: 'The stream' }],
    refusals: ['RATE_LIMITED'],
  },
];
