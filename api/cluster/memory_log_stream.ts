import { WrongLastSequenceError, type LogStream, type StreamConsumer, type StreamMessage } from './log_stream.js';

/**
 * A log stream in one process with JetStream's rules: an append lands only at the
 * sequence after the one it expects, and a message id already stored is answered with
 * its sequence before the expectation is checked. Shared by the nodes of an in-process
 * test and by the simulator, which puts its own network in front of it. Messages are
 * kept as text, so no node ever reads an object another node wrote.
 */
export class MemoryLogStream implements LogStream {
  private readonly messages: StreamMessage[] = [];
  private readonly stored_ids = new Map<string, number>();
  private readonly waiting = new Set<() => void>();

  /** Every message, in order: what the simulator's invariants read. */
  get all(): readonly StreamMessage[] {
    return this.messages;
  }

  async publish(kind: StreamMessage['kind'], data: string, msg_id: string, expect_last_seq: number): Promise<number> {
    return this.publishNow(kind, data, msg_id, expect_last_seq);
  }

  /** The publish itself, synchronous: the simulator decides when it happens. */
  publishNow(kind: StreamMessage['kind'], data: string, msg_id: string, expect_last_seq: number): number {
    const duplicate = this.stored_ids.get(msg_id);
    if (duplicate !== undefined) return duplicate;
    if (this.messages.length !== expect_last_seq) throw new WrongLastSequenceError(expect_last_seq);
    const seq = this.messages.length + 1;
    this.messages.push({ seq, kind, data });
    this.stored_ids.set(msg_id, seq);
    for (const wake of [...this.waiting]) wake();
    return seq;
  }

  /** Resolves once the stream holds message `seq`. */
  waitFor(seq: number): Promise<void> {
    if (this.messages.length >= seq) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const wake = () => {
        if (this.messages.length < seq) return;
        this.waiting.delete(wake);
        resolve();
      };
      this.waiting.add(wake);
    });
  }

  async lastSeq(): Promise<number> {
    return this.messages.length;
  }

  async get(seq: number): Promise<StreamMessage | undefined> {
    return this.messages[seq - 1];
  }

  consume(
    from_seq: number,
    deliver: (message: StreamMessage) => Promise<void>,
    on_error: (error: unknown) => void,
  ): StreamConsumer {
    let stopped = false;
    let wake: (() => void) | undefined;
    const stopping = new Promise<void>((resolve) => (wake = resolve));
    const run = async () => {
      let next = Math.max(1, from_seq);
      while (!stopped) {
        const message = this.messages[next - 1];
        if (!message) {
          await Promise.race([this.waitFor(next), stopping]);
          continue;
        }
        await deliver(message);
        next++;
      }
    };
    const running = run().catch((error) => {
      stopped = true;
      on_error(error);
    });
    return {
      stop: async () => {
        stopped = true;
        wake?.();
        await running;
      },
    };
  }
}
