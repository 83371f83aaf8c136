import { describe, expect, it } from 'vitest';
import { simulate } from './simulation/simulation.js';

/**
 * The cluster simulator's short run (npm run simulate runs any number): seeded schedules
 * of pauses, kills, lost and late messages, failed NATS calls, quorum loss and clock
 * drift against three real nodes, every invariant held after every step. And the
 * schedule that made the old log apply an act twice: a leader paused as it appended,
 * woken once another node led but had not written yet. The same seed, on the log
 * without its term fence, breaks an invariant; on today's log it holds them all.
 */
const SEEDS = Number(process.env.SIMULATION_SEEDS ?? 40);

describe('the replicated society under simulated faults', () => {
  it(`holds every invariant on ${SEEDS} seeds`, { timeout: 600_000 }, async () => {
    const failing: string[] = [];
    let acknowledged = 0;
    for (let seed = 1; seed <= SEEDS; seed++) {
      const result = await simulate({ seed });
      acknowledged += result.stats.acknowledged;
      if (result.violations.length > 0) failing.push(`seed ${seed}: ${result.violations.join('; ')}`);
    }
    expect(failing).toEqual([]);
    // The agents got work done through the faults: a run that acknowledged nothing would check nothing.
    expect(acknowledged).toBeGreaterThan(SEEDS * 10);
  });

  it('replays a seed the same way every time', async () => {
    const [first, second] = [await simulate({ seed: 7 }), await simulate({ seed: 7 })];
    expect(second.schedule).toEqual(first.schedule);
    expect(second.stats).toEqual(first.stats);
  });
});
