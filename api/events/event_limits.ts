/**
 * The event streams' bounds, for GET /api/v1/events and GET /api/v1/world/changes alike.
 * A stream may hold 1 MiB unsent in the process (a few thousand entries) before it is cut
 * off, and hands its socket 64 KiB of it at a time; a heartbeat every 15 s keeps idle
 * streams open through proxies; a stream whose client takes nothing for 30 s is reset. A
 * stream counts against both caps from the moment it is accepted until its connection
 * closes, whether it replays a backlog or follows live. One address holds at most 16.
 */
export interface EventStreamLimits {
  /**
   * Bytes of events one stream may hold unsent in the process, its queue and its socket's
   * buffer together: its memory bound. A live stream whose next event would pass it is cut
   * off as a slow reader (its queued events are discarded, `dropped` names the first of
   * them). A backlog is read from the store only as this room allows, so it never passes it.
   * It must exceed socket_write_bytes_max by more than the largest entry (LEDGER_ENTRY_BYTES_MAX).
   */
  buffer_bytes_max: number;
  /**
   * Bytes of a stream handed to its socket at once (one event more, if a single event is
   * larger); the rest waits in the stream's queue, where it can still be discarded. A slow
   * reader's `dropped` event therefore follows at most this much of its unsent data (plus
   * what the network already holds for it), not its whole queue.
   */
  socket_write_bytes_max: number;
  /** A comment line this often keeps proxies from closing an idle stream. */
  heartbeat_seconds: number;
  /**
   * A stream with bytes unsent whose socket takes none of them for this long (its client
   * reads nothing) is reset; so is a cut-off stream whose connection is still open this long
   * after its last byte went out. Checked four times a period: it happens within 1.25 times this.
   */
  stall_seconds: number;
  /** Streams open at once, over all clients, each counted until its connection closes. */
  subscribers_max: number;
  /** Streams one client address may hold open at once: enough for an agent and its tools, not for one client to take them all. */
  streams_per_address_max: number;
}

export const EVENT_STREAM_LIMITS: Readonly<EventStreamLimits> = Object.freeze({
  buffer_bytes_max: 1024 * 1024,
  socket_write_bytes_max: 64 * 1024,
  heartbeat_seconds: 15,
  stall_seconds: 30,
  subscribers_max: 10_000,
  streams_per_address_max: 16,
});
