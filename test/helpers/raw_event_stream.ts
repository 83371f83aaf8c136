import { request, type ClientRequest, type IncomingMessage } from 'node:http';
import { createParser, type EventSourceMessage } from 'eventsource-parser';

/** How a stream's connection ended, as its client saw it. */
export type StreamEnd = 'complete' | 'cut';

/**
 * A Server-Sent Event stream over bare node:http (no fetch machinery, no reconnects), from
 * a chosen local address (127.x.y.z: a client address of its own on loopback). It starts
 * paused, as a client that reads nothing: the server's bytes wait in the kernel and then in
 * the server. `read()` starts taking them.
 */
export class RawEventStream {
  readonly events: EventSourceMessage[] = [];
  /** Resolves when the response is over: read to its end, or cut (reset, destroyed). */
  readonly ended: Promise<StreamEnd>;
  private readonly parser = createParser({ onEvent: (event) => this.onEvent(event) });
  private waiting: { done: () => void; test: () => boolean } | undefined;

  private constructor(
    private readonly req: ClientRequest,
    readonly res: IncomingMessage,
  ) {
    res.pause();
    res.setEncoding('utf8');
    res.on('data', (text: string) => this.parser.feed(text));
    this.ended = new Promise((resolve) => {
      let complete = false;
      res.on('end', () => (complete = true));
      res.on('error', () => undefined);
      res.on('close', () => resolve(complete ? 'complete' : 'cut'));
    });
  }

  static open(
    base_url: string,
    path: string,
    options: { local_address?: string; headers?: Record<string, string> } = {},
  ): Promise<RawEventStream> {
    return new Promise((resolve, reject) => {
      const req = request(
        `${base_url}${path}`,
        { agent: false, headers: options.headers ?? {}, localAddress: options.local_address ?? '127.0.0.1' },
        (res) => resolve(new RawEventStream(req, res)),
      );
      req.on('error', reject);
      req.end();
    });
  }

  get status(): number {
    return this.res.statusCode ?? 0;
  }

  /** The ids of the entries received, in order. */
  get ids(): number[] {
    return this.events.filter((event) => event.event === 'entry').map((event) => Number(event.id));
  }

  /** Starts (or resumes) reading as fast as the server sends. */
  read(): this {
    this.res.resume();
    return this;
  }

  pause(): void {
    this.res.pause();
  }

  /** Reads until an event passes `test` (or the stream ends). */
  async readUntil(test: (events: EventSourceMessage[]) => boolean): Promise<void> {
    this.read();
    if (test(this.events)) return;
    await Promise.race([
      new Promise<void>((done) => (this.waiting = { done, test: () => test(this.events) })),
      this.ended,
    ]);
  }

  /** The whole body of a refusal. */
  async text(): Promise<string> {
    this.res.setEncoding('utf8');
    let text = '';
    this.res.removeAllListeners('data');
    this.res.on('data', (chunk: string) => (text += chunk));
    this.res.resume();
    await this.ended;
    return text;
  }

  close(): void {
    this.req.destroy();
  }

  private onEvent(event: EventSourceMessage): void {
    this.events.push(event);
    if (this.waiting?.test()) {
      this.waiting.done();
      this.waiting = undefined;
    }
  }
}
