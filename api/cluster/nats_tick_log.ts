import type { NatsConnection } from '@nats-io/transport-node';
import {
  jetstream,
  jetstreamManager,
  JetStreamApiCodes,
  JetStreamApiError,
  type JetStreamClient,
  type JetStreamManager,
} from '@nats-io/jetstream';
import { backoffMs, hostClock, type ClusterClock } from './cluster_clock.js';
import {
  WrongLastSequenceError,
  type LogStream,
  type StreamConsumer,
  type StreamMessage,
  type StreamMessageKind,
} from './log_stream.js';
import { StreamTickLog } from './stream_tick_log.js';

export interface NatsTickLogOptions {
  /** The stream's name; its subjects are `<name>.ticks` and `<name>.terms`. */
  stream: string;
  /** Servers that must hold a tick before it counts (3 for a three-node cluster; 1 for a lone test server). */
  replicas: number;
  clock?: ClusterClock;
  /** Told of each NATS call retried (a timeout, an election, JetStream not ready), for the node's log. */
  on_retry?: (what: string, error: unknown, attempt: number) => void;
}

/** The tick log on a JetStream stream, created by whichever node comes first. */
export async function openNatsTickLog(connection: NatsConnection, options: NatsTickLogOptions): Promise<StreamTickLog> {
  const clock = options.clock ?? hostClock;
  const stream = await JetStreamLogStream.open(connection, options.stream, options.replicas, clock, options.on_retry);
  return new StreamTickLog(stream, { clock, ...(options.on_retry ? { on_retry: options.on_retry } : {}) });
}

/**
 * A LogStream on JetStream: file storage, `replicas` copies, no deletes or purges, kept
 * forever. A tick goes to `<name>.ticks`, a term start to `<name>.terms`; the stream's
 * sequence orders both. The expected last sequence and the message id are JetStream's
 * own (Nats-Expected-Last-Sequence, Nats-Msg-Id), checked by the stream's leader.
 */
class JetStreamLogStream implements LogStream {
  private constructor(
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly name: string,
    private readonly clock: ClusterClock,
    private readonly on_retry?: (what: string, error: unknown, attempt: number) => void,
  ) {}

  static async open(
    connection: NatsConnection,
    name: string,
    replicas: number,
    clock: ClusterClock,
    on_retry?: (what: string, error: unknown, attempt: number) => void,
  ): Promise<JetStreamLogStream> {
    const jsm = await jetstreamManager(connection);
    const subjects = [`${name}.ticks`, `${name}.terms`];
    try {
      const info = await jsm.streams.info(name);
      const have = info.config.subjects ?? [];
      if (!have.includes(subjects[0]!))
        throw new Error(`the stream ${name} exists without the subject ${subjects[0]}: it is not a tick log`);
      // A log made before term starts existed gains their subject; its ticks are read as before.
      if (!have.includes(subjects[1]!)) await jsm.streams.update(name, { subjects });
    } catch (error) {
      if (!isApiError(error, JetStreamApiCodes.StreamNotFound)) throw error;
      // The same config from another node starting at the same moment is accepted as it is.
      await jsm.streams.add({
        name,
        subjects,
        storage: 'file',
        num_replicas: replicas,
        deny_delete: true,
        deny_purge: true,
        duplicate_window: 120_000_000_000,
      } as Parameters<JetStreamManager['streams']['add']>[0]);
    }
    return new JetStreamLogStream(jetstream(connection, { timeout: 5_000 }), jsm, name, clock, on_retry);
  }

  async publish(kind: StreamMessageKind, data: string, msg_id: string, expect_last_seq: number): Promise<number> {
    try {
      const ack = await this.js.publish(this.subjectOf(kind), data, {
        msgID: msg_id,
        expect: { lastSequence: expect_last_seq },
      });
      return ack.seq;
    } catch (error) {
      if (isApiError(error, JetStreamApiCodes.StreamWrongLastSequence))
        throw new WrongLastSequenceError(expect_last_seq);
      throw error;
    }
  }

  async lastSeq(): Promise<number> {
    return (await this.jsm.streams.info(this.name)).state.last_seq;
  }

  async get(seq: number): Promise<StreamMessage | undefined> {
    try {
      const message = await this.jsm.streams.getMessage(this.name, { seq });
      if (!message) return undefined;
      return { seq, kind: message.subject.endsWith('.terms') ? 'term' : 'tick', data: message.string() };
    } catch (error) {
      if (isApiError(error, JetStreamApiCodes.NoMessageFound)) return undefined;
      throw error;
    }
  }

  consume(
    from_seq: number,
    deliver: (message: StreamMessage) => Promise<void>,
    on_error: (error: unknown) => void,
  ): StreamConsumer {
    let stop_requested = false;
    let messages: { stop(): void } | undefined;
    let next_seq = Math.max(1, from_seq);
    const once = async () => {
      // An ordered consumer: ephemeral, in stream order, recreated by the client after a gap or a reconnect.
      const consumer = await this.js.consumers.get(this.name, { opt_start_seq: next_seq });
      // Pull requests that expire every 5 s (heartbeats every 2.5 s): a consumer lost with a NATS node is
      // noticed and recreated in seconds, not after the default 30 s.
      const iterator = await consumer.consume({ expires: 5000 });
      messages = iterator;
      if (stop_requested) iterator.stop();
      for await (const message of iterator) {
        if (message.seq < next_seq) continue;
        const kind = message.subject.endsWith('.terms') ? 'term' : 'tick';
        try {
          await deliver({ seq: message.seq, kind, data: message.string() });
        } catch (error) {
          throw new DeliverError(error);
        }
        next_seq = message.seq + 1;
        if (stop_requested) break;
      }
    };
    const run = async () => {
      // A consumer that cannot be made (a stream leader's election, JetStream just restarted) or that
      // ends is made again from where it was: only the follower's own refusal of a message stops it.
      for (let attempt = 0; !stop_requested; attempt++) {
        try {
          await once();
          attempt = -1;
        } catch (error) {
          if (error instanceof DeliverError) throw error.cause;
          if (stop_requested) return;
          this.on_retry?.(`follow the log from ${next_seq}`, error, attempt);
        }
        if (!stop_requested) await this.clock.sleep(backoffMs(Math.max(0, attempt)));
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

  private subjectOf(kind: StreamMessageKind): string {
    return `${this.name}.${kind === 'tick' ? 'ticks' : 'terms'}`;
  }
}

/** The follower refused a message: not a transport failure, so not retried. */
class DeliverError extends Error {
  constructor(override readonly cause: unknown) {
    super('the follower refused a message');
  }
}

function isApiError(error: unknown, code: number): boolean {
  return error instanceof JetStreamApiError && error.code === code;
}
