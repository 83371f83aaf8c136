import type { Context } from 'koa';
import { clientAddressKey } from '../client_address.js';
import { securityHeadersFor } from '../read_limiter.js';
import { RefusalError } from '../refusal_error.js';
import type { EventStreamLimits } from './event_limits.js';

/**
 * Admits a stream and writes its headers: at most subscribers_max open over all clients,
 * streams_per_address_max per client address (past either, 429 with Retry-After). A
 * stream counts from the moment it is admitted, whether it starts with a backlog or live,
 * until its connection closes: not when its response ends, since a cut-off stream's
 * connection stays open (and holds its kernel buffers) until its client reads to the end
 * or the stall check resets it. The stream is then written by its hub, not by Koa.
 */
export class StreamGate {
  private readonly open_by_address = new Map<string, number>();
  private open_total = 0;

  constructor(
    private readonly limits: Readonly<Pick<EventStreamLimits, 'subscribers_max' | 'streams_per_address_max'>>,
  ) {}

  open(ctx: Context): void {
    this.admit(ctx);
    ctx.respond = false;
    ctx.res.writeHead(200, {
      ...securityHeadersFor('text/event-stream'),
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      // Proxies that buffer (nginx) would hold events back.
      'X-Accel-Buffering': 'no',
    });
    ctx.res.flushHeaders();
  }

  private admit(ctx: Context): void {
    const address = clientAddressKey(ctx.ip);
    const open = this.open_by_address.get(address) ?? 0;
    if (this.open_total >= this.limits.subscribers_max)
      throw RefusalError.of('RATE_LIMITED', 'The service has all the event streams it takes; try again later.', {
        retry_after_seconds: 5,
      });
    if (open >= this.limits.streams_per_address_max)
      throw RefusalError.of(
        'RATE_LIMITED',
        `At most ${this.limits.streams_per_address_max} event streams per client at once.`,
        { retry_after_seconds: 5 },
      );
    this.open_by_address.set(address, open + 1);
    this.open_total += 1;
    const release = () => {
      this.open_total -= 1;
      const left = (this.open_by_address.get(address) ?? 1) - 1;
      if (left > 0) this.open_by_address.set(address, left);
      else this.open_by_address.delete(address);
    };
    const { socket } = ctx.req;
    if (socket.destroyed) release();
    else socket.once('close', release);
  }
}
