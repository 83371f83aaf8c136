import { aether_feed_limit_max, ledger_page_max } from '../engine/index.js';
import { configFromEnv } from './config.js';
import { CONNECTION_LIMITS } from './connection_limit.js';
import { EVENT_STREAM_LIMITS } from './events/event_limits.js';
import { WITNESS_LIMITS } from './log/witness_limits.js';
import { MCP_LIMITS } from './mcp_endpoint.js';
import { body_nesting_depth_max } from './nesting_limit.js';
import { ledger_scan_max } from './pages/views/ledger.js';
import { readWeightsOf } from './read_cost.js';
import { KEYS_TRACKED_MAX_DEFAULT } from './token_buckets.js';

/** One bound of the service: what it bounds, its default, and the variable that sets it (none: fixed). */
export interface LimitRow {
  scope: 'a request' | 'a client address' | 'the service';
  what: string;
  bound: string;
  setting?: string;
}

const count = (value: number) => value.toLocaleString('en-US');
const bytes = (value: number) =>
  value >= 1024 * 1024
    ? `${count(Math.round((value / (1024 * 1024)) * 100) / 100)} MiB`
    : value >= 1024 && value % 1024 === 0
      ? `${value / 1024} KiB`
      : `${count(value)} bytes`;
const seconds = (ms: number) => `${count(ms / 1000)} s`;

/**
 * Every bound the service puts on what one request, one client or everyone together may
 * take, read from where each is declared and enforced, with the defaults the environment
 * gives. The README's Limits table is this list (a test keeps it so).
 */
export function limitRows(): LimitRow[] {
  const config = configFromEnv({});
  const reads = config.read_limits;
  const weights = readWeightsOf(reads);
  const streams = { ...EVENT_STREAM_LIMITS, ...config.event_stream_limits };
  const connections = { ...CONNECTION_LIMITS, ...config.connection_limits };
  return [
    { scope: 'a request', what: 'JSON body', bound: bytes(config.body_limit_bytes), setting: 'BODY_LIMIT_BYTES' },
    { scope: 'a request', what: 'JSON nesting', bound: `${body_nesting_depth_max} levels` },
    {
      scope: 'a request',
      what: 'time to send the headers, and the whole request',
      bound: `${seconds(connections.headers_timeout_ms)}, ${seconds(connections.request_timeout_ms)}`,
    },
    { scope: 'a request', what: 'entries in a `/api/v1/ledger` answer', bound: count(ledger_page_max) },
    { scope: 'a request', what: 'entries a filtered `/ledger` page reads', bound: count(ledger_scan_max) },
    { scope: 'a request', what: 'messages in an Aether feed answer', bound: count(aether_feed_limit_max) },
    { scope: 'a request', what: 'messages in one `POST /mcp` batch', bound: count(MCP_LIMITS.batch_calls_max) },
    {
      scope: 'a request',
      what: 'answers of one `POST /mcp` batch',
      bound: bytes(MCP_LIMITS.batch_answer_bytes_max),
    },
    {
      scope: 'a request',
      what: 'what one read buys (a read costing more is charged more)',
      bound: `${weights.cpu_ms_per_read} ms of CPU, ${bytes(weights.bytes_per_read)} of answer`,
      setting: 'READ_CPU_SHARE, READ_BYTES_PER_SECOND',
    },
    {
      scope: 'a client address',
      what: 'reads a second, and at once',
      bound: `${count(reads.reads_per_second)}, ${count(reads.burst_reads)}`,
      setting: 'READS_PER_SECOND, READ_BURST',
    },
    {
      scope: 'a client address',
      what: 'CPU, and answer bytes, at the allowed read rate',
      bound: `${(weights.cpu_ms_per_read * reads.reads_per_second) / 1000} of a core, ${bytes(weights.bytes_per_read * reads.reads_per_second)} a second`,
      setting: 'READ_CPU_SHARE, READ_BYTES_PER_SECOND',
    },
    {
      scope: 'a client address',
      what: 'nonces a second, and at once',
      bound: `${count(config.nonce_limits.nonces_per_second)}, ${count(config.nonce_limits.burst_nonces)}`,
      setting: 'NONCES_PER_SECOND, NONCE_BURST',
    },
    {
      scope: 'a client address',
      what: 'registrations an hour, and at once',
      bound: `${count(config.registration_limits.registrations_per_hour)}, ${count(config.registration_limits.burst_registrations)}`,
      setting: 'REGISTRATIONS_PER_HOUR, REGISTRATION_BURST',
    },
    {
      scope: 'a client address',
      what: 'open connections',
      bound: count(connections.connections_per_address_max),
      setting: 'CONNECTIONS_PER_ADDRESS',
    },
    {
      scope: 'a client address',
      what: 'open event streams (backlog or live)',
      bound: count(streams.streams_per_address_max),
      setting: 'EVENT_STREAMS_PER_ADDRESS',
    },
    {
      scope: 'a request',
      what: 'unsent bytes one event stream may hold',
      bound: bytes(streams.buffer_bytes_max),
    },
    {
      scope: 'a request',
      what: "bytes of an event stream handed to its socket at once (what a slow reader's `dropped` may follow)",
      bound: bytes(streams.socket_write_bytes_max),
    },
    {
      scope: 'a request',
      what: 'time an event stream may go without its client taking a byte',
      bound: `${streams.stall_seconds} s`,
    },
    {
      scope: 'the service',
      what: "bytes read of a witness's answer, and the time it may take",
      bound: `${bytes(WITNESS_LIMITS.answer_bytes_max)}, ${seconds(WITNESS_LIMITS.timeout_ms)}`,
    },
    { scope: 'the service', what: 'open connections', bound: count(connections.connections_max) },
    {
      scope: 'the service',
      what: 'open event streams',
      bound: count(streams.subscribers_max),
      setting: 'EVENT_STREAMS_MAX',
    },
    {
      scope: 'the service',
      what: "members' acts waiting for the engine",
      bound: count(config.queue_depth_max ?? 0),
      setting: 'QUEUE_DEPTH_MAX',
    },
    {
      scope: 'the service',
      what: 'client addresses a rate limit remembers (past it the oldest is forgotten)',
      bound: count(KEYS_TRACKED_MAX_DEFAULT),
    },
  ];
}

/** The rows as the README's Markdown table. */
export function limitsTable(rows: readonly LimitRow[] = limitRows()): string {
  const lines = ['| per | what | default | set by |', '|---|---|---|---|'];
  const scopes: LimitRow['scope'][] = ['a request', 'a client address', 'the service'];
  for (const row of [...rows].sort((a, b) => scopes.indexOf(a.scope) - scopes.indexOf(b.scope)))
    lines.push(
      `| ${row.scope} | ${row.what} | ${row.bound} | ${
        row.setting
          ? row.setting
              .split(', ')
              .map((name) => `\`${name}\``)
              .join(', ')
          : 'fixed'
      } |`,
    );
  return lines.join('\n');
}
