import { describe, expect, it } from 'vitest';
import type { ReplicatedTick } from '../engine/index.js';
import { hostClock } from '../api/cluster/cluster_clock.js';
import type { LogStream } from '../api/cluster/log_stream.js';
import { MemoryLogStream } from '../api/cluster/memory_log_stream.js';
import { StreamTickLog } from '../api/cluster/stream_tick_log.js';
import { LogMovedError, StaleWriterError } from '../api/cluster/tick_log.js';

/**
 * The term fence on the in-process stream (the same StreamTickLog runs over JetStream):
 * a writer's ticks land only while its term is the last begun, whatever tick they carry;
 * a term begins only right after the tick its writer has; a resend after a lost answer
 * is stored once; and reads find every tick across term starts.
 */
const tick = (n: number): ReplicatedTick => ({
  record: { tick: n, at_ms: n, actions: [] },
  ledger_head: { seq: n, hash: String(n).padStart(64, '0') },
  consumed_nonces: [],
  kept_answers: [],
});

function fencedLog() {
  const stream = new MemoryLogStream();
  return { stream, log: new StreamTickLog(stream, { clock: hostClock }) };
}

describe('the tick log’s term fence', () => {
  it('refuses a late append of an ended term although the log ends just before its tick', async () => {
    const { log } = fencedLog();
    const old = await log.beginTerm('old', 0);
    await old.append(tick(1));
    await old.append(tick(2));
    // The old writer is paused with tick 3 in hand; a new writer catches up to tick 2 and begins its term.
    const next = await log.beginTerm('new', 2);
    // The old writer wakes up: "the log ends at tick 2" is still true, and it is refused all the same.
    await expect(old.append(tick(3))).rejects.toBeInstanceOf(StaleWriterError);
    expect(await log.lastTick()).toBe(2);
    await next.append(tick(3));
    expect(await log.lastTick()).toBe(3);
    expect((await log.read(3))?.record.tick).toBe(3);
  });

  it('lets a late tick that landed before the fence stand: the new term begins only after it', async () => {
    const { log } = fencedLog();
    const old = await log.beginTerm('old', 0);
    await old.append(tick(1));
    // The new writer read the log's end (tick 1); the old writer's tick 2 lands before the term start does.
    await old.append(tick(2));
    const refused = log.beginTerm('new', 1);
    await expect(refused).rejects.toBeInstanceOf(LogMovedError);
    await expect(refused).rejects.toMatchObject({ log_tick: 2 });
    // Having applied tick 2, it begins after it; the old writer is fenced from then on.
    const next = await log.beginTerm('new', 2);
    await expect(old.append(tick(3))).rejects.toBeInstanceOf(StaleWriterError);
    await next.append(tick(3));
  });

  it('never lets two terms append at one position, however their calls interleave', async () => {
    const { stream, log } = fencedLog();
    const first = await log.beginTerm('a', 0);
    await first.append(tick(1));
    const [b, c] = await Promise.allSettled([log.beginTerm('b', 1), log.beginTerm('c', 1)]);
    // One term start took the position after tick 1; the other was refused.
    expect([b.status, c.status].sort()).toEqual(['fulfilled', 'rejected']);
    const winner = (b.status === 'fulfilled' ? b : (c as PromiseFulfilledResult<never>)).value as Awaited<
      ReturnType<typeof log.beginTerm>
    >;
    await expect(first.append(tick(2))).rejects.toBeInstanceOf(StaleWriterError);
    await winner.append(tick(2));
    expect(stream.all.map((message) => message.kind)).toEqual(['term', 'tick', 'term', 'tick']);
  });

  it('stores a resend after a lost answer once, and tells the writer it is stored', async () => {
    const memory = new MemoryLogStream();
    let lose_next_answer = false;
    // The first publish of tick 2 lands, but its answer is lost on the way back.
    const lossy: LogStream = {
      publish: async (...args) => {
        const seq = await memory.publish(...args);
        if (lose_next_answer) {
          lose_next_answer = false;
          throw new Error('timeout');
        }
        return seq;
      },
      lastSeq: () => memory.lastSeq(),
      get: (seq) => memory.get(seq),
      consume: (...args) => memory.consume(...args),
    };
    const retried: string[] = [];
    const log = new StreamTickLog(lossy, { clock: hostClock, on_retry: (what) => retried.push(what) });
    const writer = await log.beginTerm('t', 0);
    await writer.append(tick(1));
    lose_next_answer = true;
    await writer.append(tick(2));
    expect(retried).toEqual(['append t:2']);
    expect(memory.all.filter((message) => message.kind === 'tick')).toHaveLength(2);
    await writer.append(tick(3));
    expect(await log.lastTick()).toBe(3);
  });

  it('reads and follows every tick in order across term starts, and refuses a log with a gap', async () => {
    const { log } = fencedLog();
    let tick_number = 0;
    for (const term of ['a', 'b', 'c']) {
      const writer = await log.beginTerm(term, tick_number);
      for (let index = 0; index < 3; index++) await writer.append(tick(++tick_number));
    }
    // A fresh reader (no hint) and the same reader at random.
    for (const number of [9, 1, 5, 4, 7, 2, 8, 3, 6]) expect((await log.read(number))?.record.tick).toBe(number);
    expect(await log.read(10)).toBeUndefined();
    const followed: number[] = [];
    const follower = log.follow(
      2,
      async (next) => void followed.push(next.record.tick),
      (error) => followed.push(-1 * Number(Boolean(error))),
    );
    const writer = await log.beginTerm('d', 9);
    await writer.append(tick(10));
    await new Promise((resolve) => setTimeout(resolve, 20));
    await follower.stop();
    expect(followed).toEqual([3, 4, 5, 6, 7, 8, 9, 10]);
    // A writer cannot skip a tick: its log would have a gap no follower could apply.
    await expect(writer.append(tick(12))).rejects.toThrow(/appends its ticks in order/);
  });

  it('treats a forged term start as what it is: it fences the writer out, and a malformed one stops the log with its text', async () => {
    const { stream, log } = fencedLog();
    const writer = await log.beginTerm('honest', 0);
    await writer.append(tick(1));
    // Anyone able to publish on the stream's terms subject (a compromised client of NATS) can claim a term.
    await stream.publish(
      'term',
      JSON.stringify({ term: 'forged', after_tick: 1 }),
      'term:forged',
      await stream.lastSeq(),
    );
    // The honest writer is fenced: it writes nothing more, and nothing the forger claimed is a tick.
    await expect(writer.append(tick(2))).rejects.toBeInstanceOf(StaleWriterError);
    expect(await writer.stillCurrent()).toBe(false);
    expect(await log.lastTick()).toBe(1);
    expect(await log.read(2)).toBeUndefined();
    // A new term begins after it as after any other, and writes on.
    const next = await log.beginTerm('next', 1);
    await next.append(tick(2));
    expect((await log.read(2))?.record.tick).toBe(2);
    // A term start without its tick is no term start: the log refuses to say where it ends, naming what it found.
    await stream.publish('term', '{"term":"broken"}', 'term:broken', await stream.lastSeq());
    await expect(log.lastTick()).rejects.toThrow(/a term start without its tick: \{"term":"broken"\}/);
    await expect(log.beginTerm('after-broken', 2)).rejects.toThrow(/a term start without its tick/);
  });
});
