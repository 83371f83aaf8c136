import { beforeAll, describe, expect, it } from 'vitest';
import { LedgerChecker, type WireEntry } from '../client/ledger_check.js';
import { EVENT_DATA } from '../engine/events/event_data.js';
import { EVENT_TYPES } from '../engine/events/event_catalogue.js';
import { CATALOGUE, imageOf, stateFromImage, stateHash } from '../engine/index.js';
import { firstProblem, rehashFrom } from './helpers/forged_ledger.js';
import { everyActSociety, SYSTEM_ACTS, type EveryActSociety } from './helpers/every_act_society.js';

/**
 * Every write act of the catalogue, run once in one society (test/helpers/every_act_society.ts),
 * then the whole ledger read by the client's verifier: an act that emits what the event
 * catalogue does not declare stops at once (engine/events/emit_check.ts), and one the
 * verifier's tables would refuse fails here. A new act is not covered until it is added
 * to that society, which the first test demands.
 */

let made: EveryActSociety;
let entries: WireEntry[];

beforeAll(async () => {
  made = await everyActSociety();
  entries = made.entries;
}, 120_000);

describe('every act of the catalogue, in one society', () => {
  it('runs every write act the catalogue holds', () => {
    const write_acts = CATALOGUE.filter((act) => act.effect === 'write').map((act) => act.name);
    expect(write_acts.filter((name) => !made.applied.has(name))).toEqual([]);
    expect([...SYSTEM_ACTS].every((name) => made.applied.has(name))).toBe(true);
  });

  it('writes every event type of the event catalogue, each entry with data its schema accepts', () => {
    const seen = new Set(entries.map((entry) => entry.event_type));
    expect(EVENT_TYPES.filter((type) => !seen.has(type))).toEqual([]);
    for (const entry of entries) {
      const parsed = EVENT_DATA[entry.event_type as keyof typeof EVENT_DATA].safeParse(entry.data);
      expect(parsed.success, `${entry.seq} ${entry.event_type}: ${parsed.error?.message}`).toBe(true);
    }
  });

  it("passes the client's verifier, entry by entry", async () => {
    const checker = new LedgerChecker();
    for (const entry of entries) expect(await checker.check(entry)).toBeUndefined();
    expect(checker.checked).toBe(entries.length);
  });

  it("fails verification where an operator moves the Founder's resolution onto another motion", async () => {
    const chain = structuredClone(entries);
    const index = chain.findIndex((entry) => entry.event_type === 'motion_resolved_by_founder');
    const other = chain.find(
      (entry) => entry.event_type === 'motion_filed' && entry.data.motion_id !== chain[index]!.data.motion,
    );
    chain[index]!.data.motion = other!.data.motion_id;
    expect(await firstProblem(await rehashFrom(chain, index))).toEqual({
      seq: index + 1,
      reason: "data.motion differs from the signed body's motion_id",
    });
  });

  it('round-trips a snapshot of the state it leaves: the same state hash', () => {
    const state = made.society.engine.state;
    const restored = stateFromImage(structuredClone(imageOf(state)));
    expect(stateHash(restored)).toBe(stateHash(state));
  });
});
