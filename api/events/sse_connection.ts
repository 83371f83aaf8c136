import type { ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { EventStreamLimits } from './event_limits.js';

type ConnectionLimits = Pick<EventStreamLimits, 'buffer_bytes_max' | 'socket_write_bytes_max'>;

interface QueuedEvent {
  text: string;
  bytes: number;
  /** Where a client resumes to receive this event again (the ledger's seq); none for streams without history. */
  seq: number | undefined;
}

/**
 * One stream's way to its client: a queue in the process, then the socket. Events wait in
 * the queue and go to the socket as it takes them, socket_write_bytes_max at a time, so
 * what a stream holds unsent stays mostly in the queue, where it can still be discarded (a
 * cut-off discards it and its `dropped` event goes out right behind what the socket holds).
 * The queue and the socket's unsent bytes together never pass buffer_bytes_max. It notes
 * when its socket last took bytes, which is how a stall is told from a slow network.
 */
export class SseConnection {
  private readonly queue: QueuedEvent[] = [];
  private queued_bytes = 0;
  /** Host time its socket last handed bytes on, or began to hold some unsent. */
  private progress_ms: number;
  /** Streaming; its last event written (it waits for its connection to close); closed. */
  private phase: 'open' | 'ending' | 'closed' = 'open';
  private readonly closed_listeners: (() => void)[] = [];
  private readonly room_waiters: (() => void)[] = [];
  /** The connection itself, which outlives the response (keep-alive): a test's bare writable has none. */
  private readonly socket: Socket | undefined;
  private readonly written = () => this.onWritten();

  constructor(
    readonly res: ServerResponse,
    private readonly limits: Readonly<ConnectionLimits>,
    private readonly clock: () => number,
  ) {
    this.socket = res.socket ?? undefined;
    this.progress_ms = clock();
    if (this.socket?.destroyed) this.onClosed();
    else (this.socket ?? res).once('close', () => this.onClosed());
  }

  get closed(): boolean {
    return this.phase === 'closed';
  }

  /** Bytes queued and bytes the socket holds unsent. */
  get unsent_bytes(): number {
    return this.queued_bytes + this.res.writableLength;
  }

  /** How much more may be queued before the socket's share is full; a backlog is read only while this is positive. */
  get room_bytes(): number {
    return this.phase === 'open' ? this.limits.socket_write_bytes_max - this.unsent_bytes : 0;
  }

  /** The resume point of the first event still queued, which the client has not received. */
  get first_queued_seq(): number | undefined {
    return this.queue[0]?.seq;
  }

  /** Host time since which its unsent bytes have not moved (or since it last had none). */
  get last_progress_ms(): number {
    return this.progress_ms;
  }

  /** Calls back once, when the connection closes (whoever closes it). */
  onClose(listener: () => void): void {
    if (this.phase === 'closed') listener();
    else this.closed_listeners.push(listener);
  }

  /** Resolves when there is room again, or the stream ends. */
  room(): Promise<void> {
    if (this.room_bytes > 0 || this.phase !== 'open') return Promise.resolve();
    return new Promise((resolve) => this.room_waiters.push(resolve));
  }

  /** Queues one event; false, queuing nothing, when that would hold more than buffer_bytes_max unsent. */
  offer(text: string, seq?: number): boolean {
    if (this.phase !== 'open') return false;
    const bytes = Buffer.byteLength(text);
    if (this.unsent_bytes + bytes > this.limits.buffer_bytes_max) return false;
    this.queue.push({ text, bytes, seq });
    this.queued_bytes += bytes;
    return true;
  }

  /** Hands queued events to the socket while it holds less than socket_write_bytes_max unsent: whole events, at least one. */
  flush(): void {
    while (this.phase === 'open' && this.queue.length > 0) {
      const room = this.limits.socket_write_bytes_max - this.res.writableLength;
      if (room <= 0) return;
      let count = 1;
      let bytes = this.queue[0]!.bytes;
      while (count < this.queue.length && bytes + this.queue[count]!.bytes <= room) bytes += this.queue[count++]!.bytes;
      const taken = this.queue.splice(0, count);
      this.queued_bytes -= bytes;
      this.write(count === 1 ? taken[0]!.text : taken.map((event) => event.text).join(''));
    }
  }

  /** Writes straight to the socket, past the queue: for what goes only to an idle stream (a heartbeat, the retry line). */
  write(text: string): void {
    if (this.phase !== 'open') return;
    // Unsent bytes that appear on an idle socket start the stall clock afresh.
    if (this.res.writableLength === 0) this.progress_ms = this.clock();
    this.res.write(text, this.written);
  }

  /**
   * Its last event: discards the queue, writes `final` behind what the socket holds, and
   * ends the response. Once all of that is handed on, the connection is half-closed (the
   * client reads to the end, then closes it); until the client closes it, it counts.
   */
  end(final: string): void {
    if (this.phase !== 'open') return;
    this.phase = 'ending';
    this.discardQueue();
    this.res.end(final, () => {
      this.progress_ms = this.clock();
      this.socket?.end();
    });
    this.wakeRoomWaiters();
  }

  /**
   * Closes the connection at once with a TCP reset, which also drops what the kernel holds
   * for it (a plain close would leave that being sent to a client that does not read).
   */
  reset(): void {
    if (this.phase === 'closed') return;
    this.discardQueue();
    try {
      if (this.socket && !this.socket.destroyed) this.socket.resetAndDestroy();
      else this.res.destroy();
    } catch {
      // Not a TCP socket (a pipe): a plain destroy is the nearest thing.
      this.socket?.destroy();
    }
  }

  private onWritten(): void {
    this.progress_ms = this.clock();
    this.flush();
    if (this.room_bytes > 0) this.wakeRoomWaiters();
  }

  private onClosed(): void {
    if (this.phase === 'closed') return;
    this.phase = 'closed';
    this.discardQueue();
    this.wakeRoomWaiters();
    for (const listener of this.closed_listeners.splice(0)) listener();
  }

  private discardQueue(): void {
    this.queue.length = 0;
    this.queued_bytes = 0;
  }

  private wakeRoomWaiters(): void {
    for (const wake of this.room_waiters.splice(0)) wake();
  }
}
