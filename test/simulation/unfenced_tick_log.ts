import { StreamTickLog } from '../../api/cluster/stream_tick_log.js';

/**
 * The tick log as it was before fencing by term (commit 93d61a0 and earlier): a new
 * writer's first tick only expects the log to end where the writer caught up, so a
 * paused old writer's late append that lands first is taken. The simulator runs it to
 * show that it finds that schedule (test/simulation.test.ts); nothing else uses it.
 */
export class UnfencedTickLog extends StreamTickLog {
  protected override async fence(_term: string, last_seq: number): Promise<number> {
    return last_seq;
  }
}
