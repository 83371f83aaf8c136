import { spawn, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { machineSlowness, onThisMachine } from './helpers/machine_pace.js';

/** The stretch timing bounds get on a busy machine (test/helpers/machine_pace.ts). */
describe('the machine pace of timing bounds', () => {
  it('measures a machine whose every core runs two busy processes as at least 1.3 times slower, and stretches bounds by it', async () => {
    const burners: ChildProcess[] = Array.from({ length: availableParallelism() * 2 }, () =>
      spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }),
    );
    try {
      await new Promise((resolve) => setTimeout(resolve, 300));
      const slowness = machineSlowness();
      expect(slowness).toBeGreaterThan(1.3);
      expect(slowness).toBeLessThanOrEqual(6);
      // A fixed part (a ttl) is never stretched; the rest is, by about the slowness measured.
      const bound_ms = onThisMachine(3000, 1000);
      expect(bound_ms).toBeGreaterThan(1000 + 2000 * 1.2);
    } finally {
      for (const burner of burners) burner.kill('SIGKILL');
    }
  });

  it('never tightens a bound', () => {
    expect(onThisMachine(500)).toBeGreaterThanOrEqual(500);
    expect(machineSlowness()).toBeGreaterThanOrEqual(1);
  });
});
