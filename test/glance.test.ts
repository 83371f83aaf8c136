import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Vitals, vitals_fold_max } from '../api/pages/vitals.js';
import { request } from './helpers/signed.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { join, pacing, type Member } from './helpers/world.js';

const page = async (society: TestSociety, path: string) => (await request(society.url, path)).body as string;

describe('the society at a glance', () => {
  let empty: TestSociety;
  let busy: TestSociety;
  let ada: Member;

  beforeAll(async () => {
    empty = await startTestSociety({ genesis: { world_seed: 'world-tests' } });
    busy = await startTestSociety({ genesis: { world_seed: 'world-tests', params: { ap_at_registration: 100 } } });
    ada = await join(busy, 'ada');
    const step = pacing(busy, ada);
    for (let i = 0; i < 3; i++) await ada.client.act('world_move', { path: [step()] });
    await ada.client.act('motion_propose', { title: 'Lanterns', body: '', changes: [] });
  }, 60_000);
  afterAll(async () => {
    await empty?.destroy();
    await busy?.destroy();
  });

  it('draws every chart from public data: members, acts a day, motions by outcome, ledger growth, AP by biome', async () => {
    for (const path of ['/', '/society']) {
      const html = await page(busy, path);
      expect(html, path).toContain('<h2>At a glance</h2>');
      expect(html, path).toMatch(/aria-label="Members, by the end of each day: 1 member on/);
      expect(html, path).toMatch(/aria-label="Signed acts a day: \d+ acts/);
      expect(html, path).toMatch(/aria-label="Motions by status: enacted 0, passed 0, open 0, draft 1, failed 0"/);
      expect(html, path).toMatch(/aria-label="Ledger entries, by the end of each day: \d+ entries/);
      // Three one-step moves of 1 to 4 AP each, all spent on the biomes they stepped onto.
      const ap = /aria-label="AP spent by biome: ([^"]+)"/.exec(html)![1]!;
      const spent = [...ap.matchAll(/(\d+)/g)].reduce((sum, match) => sum + Number(match[1]), 0);
      expect(spent, ap).toBeGreaterThanOrEqual(3);
      expect(html).toContain('<rect class="bar"');
    }
    const twin = await page(busy, '/society.md');
    expect(twin).toContain('## At a glance');
    expect(twin).toContain('1 draft');
  });

  it('says what it has no data for yet in an empty society, and still draws the rest', async () => {
    const html = await page(empty, '/society');
    expect(html).toContain('Motions by status: no motion yet.');
    expect(html).toContain('AP spent by biome: no data yet.');
    expect(html).toMatch(/Members, by the end of each day: no data yet/);
    expect(await page(empty, '/society.md')).toContain('AP spent by biome: none yet.');
  });
});

describe('the vitals fold', () => {
  /** A ledger reader over made-up entries, counting what it is asked for. */
  function ledgerOf(count: () => number) {
    const entry = (seq: number) =>
      JSON.stringify({
        seq,
        at: '2026-11-21T10:00:00.000+00:00',
        event_type: 'vote_cast',
        actor: 'ag_1',
        data: {},
        proof: {},
      });
    return {
      head: () => ({ seq: count(), hash: '' }),
      page: (from: number, limit: number) =>
        Array.from({ length: Math.max(0, Math.min(limit, count() - from + 1)) }, (_, i) => entry(from + i)),
    };
  }
  const state = { world: { terrain: { biome: new Uint8Array(0) } } } as never;

  it('reads only the entries added since it last read', () => {
    let size = 120;
    const ledger = ledgerOf(() => size);
    const vitals = new Vitals();
    vitals.fold(ledger, state);
    expect([vitals.entries_read, vitals.days.get('2026-11-21')!.acts]).toEqual([120, 120]);
    size = 125;
    vitals.fold(ledger, state);
    expect([vitals.entries_read, vitals.folded_seq]).toEqual([125, 125]);
  });

  it('counts a long ledger over several requests instead of one long one', () => {
    const ledger = ledgerOf(() => vitals_fold_max + 10);
    const vitals = new Vitals();
    vitals.fold(ledger, state);
    expect(vitals.folded_seq).toBe(vitals_fold_max);
    vitals.fold(ledger, state);
    expect(vitals.folded_seq).toBe(vitals_fold_max + 10);
  });
});
