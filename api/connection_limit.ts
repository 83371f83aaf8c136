import type { Server, Socket } from 'node:net';
import { clientAddressKey } from './client_address.js';

/**
 * What the HTTP server itself bounds, before any request is read: connections (each a
 * file descriptor and kernel buffers) per client address and in all, and how long a
 * client may take to send its headers and its request. Event streams are connections
 * too, under their own smaller caps (api/events/event_limits.ts).
 */
export interface ConnectionLimits {
  /** Open connections one client address (an IPv6 client: its /64) may hold. */
  connections_per_address_max: number;
  /** Open connections over all clients; past it node:http closes new ones at once. */
  connections_max: number;
  /** A client that has not sent its whole header block by then is disconnected (slow-header clients). */
  headers_timeout_ms: number;
  /** A client that has not sent its whole request by then is answered 408 and disconnected. */
  request_timeout_ms: number;
}

export const CONNECTION_LIMITS: Readonly<ConnectionLimits> = Object.freeze({
  connections_per_address_max: 64,
  connections_max: 20_000,
  headers_timeout_ms: 10_000,
  request_timeout_ms: 30_000,
});

/**
 * Applies the limits to a server: its own timeouts and total, and a count per address
 * that closes a connection past the cap as soon as it is accepted (nothing is read from
 * it). The count is a map of addresses with open connections only, so it is as large as
 * the connections themselves, which connections_max bounds.
 */
export function limitConnections(
  server: Server & { headersTimeout?: number; requestTimeout?: number },
  limits: Readonly<ConnectionLimits>,
): void {
  server.maxConnections = limits.connections_max;
  server.headersTimeout = limits.headers_timeout_ms;
  server.requestTimeout = limits.request_timeout_ms;
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const key = clientAddressKey(socket.remoteAddress ?? '');
    const count = open.get(key) ?? 0;
    if (count >= limits.connections_per_address_max) {
      socket.destroy();
      return;
    }
    open.set(key, count + 1);
    socket.once('close', () => {
      const left = (open.get(key) ?? 1) - 1;
      if (left === 0) open.delete(key);
      else open.set(key, left);
    });
  });
}
