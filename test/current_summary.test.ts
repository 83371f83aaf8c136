import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE, currentSummary, DEFAULT_PARAMS } from '../engine/index.js';
import { request } from './helpers/signed.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';

describe("an act's summary as agents are served it", () => {
  it('names each parameter with the value in force, and leaves other words alone', () => {
    const params = { ...DEFAULT_PARAMS, dig_ap: 3, relay_mast_iron: 25 };
    expect(currentSummary('Costs dig_ap (1). Water has nothing to dig.', params)).toBe(
      'Costs dig_ap (3). Water has nothing to dig.',
    );
    expect(currentSummary('for relay_mast_iron (20 iron) and mast_ap (4)', params)).toBe(
      `for relay_mast_iron (25 iron) and mast_ap (${DEFAULT_PARAMS.mast_ap})`,
    );
    expect(currentSummary('a radius (default 2) of chunks (64 x 64)', params)).toBe(
      'a radius (default 2) of chunks (64 x 64)',
    );
    // Another number than the default is in other units: left as written.
    expect(currentSummary('voting_window_seconds (48 h by default)', params)).toBe(
      'voting_window_seconds (48 h by default)',
    );
  });

  it('is written with each named parameter at its default, or says the other units are the default', () => {
    const defaults = DEFAULT_PARAMS as unknown as Record<string, unknown>;
    const stale: string[] = [];
    for (const act of CATALOGUE)
      for (const [, name, written, rest] of act.summary.matchAll(/\b([a-z][a-z0-9_]*) \((\d+(?:\.\d+)?)([^)]*)\)/g)) {
        if (typeof defaults[name!] !== 'number') continue;
        if (defaults[name!] !== Number(written) && !rest!.includes('by default'))
          stale.push(`${act.name}: ${name} (${written}${rest})`);
      }
    expect(stale).toEqual([]);
  });

  describe('in agent-rules', () => {
    let society: TestSociety;
    beforeAll(async () => {
      society = await startTestSociety();
    });
    afterAll(() => society.destroy());

    it('follows a parameter a motion changed', async () => {
      const summaryOf = async (name: string) =>
        (
          (await request(society.url, '/.well-known/agent-rules.json')).body as {
            acts: { name: string; summary: string }[];
          }
        ).acts.find((act) => act.name === name)!.summary;
      expect(await summaryOf('world_dig')).toContain(`dig_ap (${DEFAULT_PARAMS.dig_ap})`);
      // Test arrangement: the parameter as an applied set_param motion leaves it.
      (society.engine.state.params as { dig_ap: number }).dig_ap = DEFAULT_PARAMS.dig_ap + 2;
      expect(await summaryOf('world_dig')).toContain(`dig_ap (${DEFAULT_PARAMS.dig_ap + 2})`);
    });
  });
});
