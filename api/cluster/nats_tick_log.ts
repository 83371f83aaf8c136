import type { NatsConnection } from '@nats-io/transport-node';
import {
  jetstream,
  jetstreamManager,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import type { ReplicatedTick } from '../../engine/index.js';
import { decodeTick, encodeTick, StaleWriterError, type LogFollower, type TickLog } from './tick_log.js';

export interface NatsTickLogOptions {
  /** The stream's name; its one subject is `<name>.ticks`. */
  stream: string;
  /** Servers that must hold a tick before it counts (3 for a three-node cluster; 1 for a lone test server). */
  replicas: number;
  /**
   * How long an append keeps trying through a lost connection or a stream leader's
   * election before it gives up (the writer then stops, as for any failed commit).
   */
  append_timeout_ms?: number;
}

/**
 * The tick log as a JetStream stream: file storage, `replicas` copies, no deletes or
 * purges, kept forever. Tick n is stream message n, so the stream's sequence is the
 * tick number and "expected last sequence n - 1" is exactly "the log ends at tick
 * n - 1": a second writer's append is refused by the stream itself. The message id is
 * `<term>:<tick>`, not the tick alone: JetStream answers a repeated id as a duplicate
 * before it checks the expected sequence, so a bare tick number would let a stale
 * writer's tick n pass as stored when another writer's tick n is. With the term in
 * the id, only the same writer's resend is a duplicate.
 */
export class NatsTickLog implements TickLog {
  private constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly options: NatsTickLogOptions,
  ) {}

  static async open(connection: NatsConnection, options: NatsTickLogOptions): Promise<NatsTickLog> {
    const jsm = await jetstreamManager(connection);
    const subject = `${options.stream}.ticks`;
    try {
      const info = await jsm.streams.info(options.stream);
      if (!info.config.subjects?.includes(subject))
        throw new Error(`the stream ${options.stream} exists without the subject ${subject}: it is not a tick log`);
    } catch (error) {
      if (!isApiError(error, JetStreamApiCodes.StreamNotFound)) throw error;
      // Created by whichever node comes first; the same config from another node is accepted as it is.
      await jsm.streams.add({
        name: options.stream,
        subjects: [subject],
        storage: 'file',
        num_replicas: options.replicas,
        deny_delete: true,
        deny_purge: true,
        duplicate_window: 120_000_000_000,
      } as Parameters<JetStreamManager['streams']['add']>[0]);
    }
    return new NatsTickLog(jetstream(connection, { timeout: 5_000 }), jsm, options);
  }

  async append(tick: ReplicatedTick, term: string): Promise<void> {
    const number = tick.record.tick;
    const data = encodeTick(tick);
    const give_up_at = Date.now() + (this.options.append_timeout_ms ?? 20_000);
    for (;;) {
      try {
        const ack = await this.js.publish(`${this.options.stream}.ticks`, data, {
          msgID: `${term}:${number}`,
          expect: { lastSequence: number - 1 },
        });
        if (ack.seq !== number) throw new StaleWriterError(number, undefined);
        return;
      } catch (error) {
        if (isApiError(error, JetStreamApiCodes.StreamWrongLastSequence)) throw new StaleWriterError(number, undefined);
        if (error instanceof StaleWriterError || Date.now() > give_up_at) throw error;
        // A timeout or a lost connection: the tick may or may not be stored. The same id
        // again is either stored now or answered as the duplicate it is.
        await new Promise((resolve) => setTimeout(resolve, 250));
      }
    }
  }

  async lastTick(): Promise<number> {
    return (await this.jsm.streams.info(this.options.stream)).state.last_seq;
  }

  async read(tick: number): Promise<ReplicatedTick | undefined> {
    try {
      const message = await this.jsm.streams.getMessage(this.options.stream, { seq: tick });
      return message ? decodeTick(message.string(), tick) : undefined;
    } catch (error) {
      if (isApiError(error, JetStreamApiCodes.NoMessageFound)) return undefined;
      throw error;
    }
  }

  follow(
    after: number,
    apply: (tick: ReplicatedTick) => Promise<void>,
    on_error: (error: unknown) => void,
  ): LogFollower {
    let stop_requested = false;
    let messages: { stop(): void } | undefined;
    const run = async () => {
      // An ordered consumer: ephemeral, in stream order, recreated by the client after a gap or a reconnect.
      const consumer = await this.js.consumers.get(this.options.stream, { opt_start_seq: after + 1 });
      // Pull requests that expire every 5 s (heartbeats every 2.5 s): a consumer lost with a NATS node is
      // noticed and recreated in seconds, not after the default 30 s.
      const iterator = await consumer.consume({ expires: 5000 });
      messages = iterator;
      if (stop_requested) iterator.stop();
      for await (const message of iterator) {
        await apply(decodeTick(message.string(), message.seq));
        if (stop_requested) break;
      }
    };
    const running = run().catch((error) => {
      if (!stop_requested) on_error(error);
    });
    return {
      stop: async () => {
        stop_requested = true;
        messages?.stop();
        await running;
      },
    };
  }

  async close(): Promise<void> {}
}

function isApiError(error: unknown, code: number): boolean {
  return error instanceof JetStreamApiError && error.code === code;
}
