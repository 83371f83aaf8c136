/**
 * The event stream's bounds. A subscriber may leave 1 MiB unread (a few thousand entries)
 * before it is cut off; a heartbeat every 15 s keeps idle streams open through proxies and
 * notices a reader that stopped (no bytes drained for 30 s). One address holds at most 16.
 */
export interface EventStreamLimits {
  /** Bytes a subscriber may leave unread before it is cut off (its memory bound). */
  buffer_bytes_max: number;
  /** A comment line this often keeps proxies from closing an idle stream. */
  heartbeat_seconds: number;
  /** A stream whose unread bytes have not moved for this long is cut off. */
  stall_seconds: number;
  /** Streams open at once, over all clients. */
  subscribers_max: number;
  /** Streams one client address may hold open at once: enough for an agent and its tools, not for one client to take them all. */
  streams_per_address_max: number;
}

export const EVENT_STREAM_LIMITS: Readonly<EventStreamLimits> = Object.freeze({
  buffer_bytes_max: 1024 * 1024,
  heartbeat_seconds: 15,
  stall_seconds: 30,
  subscribers_max: 10_000,
  streams_per_address_max: 16,
});
