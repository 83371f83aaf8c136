import type { LeaseBucket } from '../../api/cluster/leader_lease.js';
import type { LogStream, StreamConsumer, StreamMessage } from '../../api/cluster/log_stream.js';
import { MemoryLeaseBucket } from '../../api/cluster/memory_lease_bucket.js';
import { MemoryLogStream } from '../../api/cluster/memory_log_stream.js';
import type { Random } from './random.js';
import type { Scheduler } from './scheduler.js';

/** How the simulated NATS cluster misbehaves: chances per call, and delays in simulated ms. */
export interface NatsFaults {
  /** A request that never arrives: the caller times out, nothing happened. */
  lose_request: number;
  /** A request that is carried out but whose answer never comes back: the caller times out. */
  lose_answer: number;
  /** An error answered at once ("JetStream temporarily unavailable"), nothing happened. */
  refuse: number;
  /** A request held in the network for 50 to 3000 ms (so calls overtake one another). */
  delay: number;
  /** How long a client waits for an answer before it gives up on a call. */
  timeout_ms: number;
}

/** Spans of simulated time during which the NATS cluster has no quorum: every call fails. */
export interface Outage {
  from_ms: number;
  until_ms: number;
}

/**
 * The NATS cluster the simulated nodes share: one log stream and one lease bucket with
 * JetStream's rules (the in-process adapters), behind a network the simulator owns.
 * A call is sent as its node's event (a paused node sends nothing), crosses the network
 * (delayed, lost, refused, or failing in an outage), is carried out at once where it
 * arrives, and its answer comes back as the node's event again.
 */
export class SimNats {
  readonly stream = new MemoryLogStream();
  readonly bucket: MemoryLeaseBucket;
  readonly outages: Outage[] = [];
  /** Each message's id, by sequence: what the invariants read to see which term appended it. */
  readonly message_ids: string[] = [];
  calls = 0;
  /** Told of every publish as a process makes it, before it is sent: where a fault can strike at the worst moment. */
  on_publish: ((owner: string, kind: StreamMessage['kind']) => void) | undefined;

  constructor(
    private readonly scheduler: Scheduler,
    private readonly random: Random,
    private faults: NatsFaults,
    lease_expire_after_ms: number,
  ) {
    this.bucket = new MemoryLeaseBucket(() => scheduler.now_ms, lease_expire_after_ms);
  }

  /** A publish carried out on the stream, its id kept for the invariants. */
  publishNow(kind: StreamMessage['kind'], data: string, msg_id: string, expect_last_seq: number): number {
    const seq = this.stream.publishNow(kind, data, msg_id, expect_last_seq);
    this.message_ids[seq] ??= msg_id;
    return seq;
  }

  inOutage(at_ms = this.scheduler.now_ms): boolean {
    return this.outages.some((outage) => at_ms >= outage.from_ms && at_ms < outage.until_ms);
  }

  /** A node process's connection: `owner` names the process incarnation whose events carry its calls. */
  link(owner: string): { stream: LogStream; bucket: LeaseBucket } {
    const stream = this.stream;
    const bucket = this.bucket;
    return {
      stream: {
        publish: (kind, data, msg_id, expect) => {
          this.on_publish?.(owner, kind);
          return this.call(owner, () => this.publishNow(kind, data, msg_id, expect));
        },
        lastSeq: () => this.call(owner, () => stream.all.length),
        get: (seq) => this.call(owner, () => stream.all[seq - 1]),
        consume: (from_seq, deliver, on_error) => this.consume(owner, from_seq, deliver, on_error),
      },
      bucket: {
        get: () => this.call(owner, () => bucket.getNow()),
        create: (value) => this.call(owner, () => bucket.createNow(value)),
        update: (value, revision) => this.call(owner, () => bucket.updateNow(value, revision)),
        delete: (revision) => this.call(owner, () => bucket.deleteNow(revision)),
      },
    };
  }

  /** Sets the fault rates from now on (the simulation calms the network before its end). */
  setFaults(faults: NatsFaults): void {
    this.faults = faults;
  }

  private call<T>(owner: string, carry_out: () => T): Promise<T> {
    this.calls++;
    const { scheduler, random, faults } = this;
    return new Promise<T>((resolve, reject) => {
      let answered = false;
      const answer = (settle: () => void) => {
        if (answered) return;
        answered = true;
        settle();
      };
      const timeout = () => answer(() => reject(new Error('timeout: no answer from NATS')));
      scheduler.at(0, owner, () => {
        const roll = random.next();
        const transit_ms = random.chance(faults.delay) ? random.between(50, 3000) : random.between(0.2, 3);
        const back_ms = random.between(0.2, 3);
        if (roll < faults.lose_request) return scheduler.at(faults.timeout_ms, owner, timeout);
        if (roll < faults.lose_request + faults.refuse)
          return scheduler.at(back_ms, owner, () =>
            answer(() => reject(new Error('503: JetStream system temporarily unavailable'))),
          );
        const lose_answer = roll < faults.lose_request + faults.refuse + faults.lose_answer;
        scheduler.at(faults.timeout_ms, owner, timeout);
        scheduler.at(transit_ms, undefined, () => {
          if (this.inOutage()) return;
          let outcome: () => void;
          try {
            const value = carry_out();
            outcome = () => resolve(value);
          } catch (error) {
            outcome = () => reject(error);
          }
          if (!lose_answer) scheduler.at(back_ms, owner, () => answer(outcome));
        });
      });
    });
  }

  /**
   * An ordered consumer: each message reaches the node as its event, after a network
   * delay, none while NATS has no quorum. A stopped consumer delivers nothing more.
   */
  private consume(
    owner: string,
    from_seq: number,
    deliver: (message: StreamMessage) => Promise<void>,
    on_error: (error: unknown) => void,
  ): StreamConsumer {
    let stopped = false;
    let delivering: Promise<void> | undefined;
    const run = async () => {
      for (let next = Math.max(1, from_seq); !stopped; next++) {
        await this.stream.waitFor(next);
        do await this.scheduler.sleep(this.random.between(0.2, 5), owner);
        while (this.inOutage() && !stopped);
        if (stopped) return;
        delivering = deliver(this.stream.all[next - 1]!);
        await delivering;
        delivering = undefined;
      }
    };
    run().catch((error) => {
      stopped = true;
      on_error(error);
    });
    return {
      stop: async () => {
        stopped = true;
        await delivering?.catch(() => undefined);
      },
    };
  }
}
