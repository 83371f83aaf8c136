import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LedgerEntrySchema } from '../engine/events/entry_schema.js';
import { EVENT_TYPES, type EventType } from '../engine/events/event_catalogue.js';
import { EVENT_DATA } from '../engine/events/event_data.js';

interface Entry {
  event_type: string;
  data: Record<string, unknown>;
}

function entriesOf(relative: string): Entry[] {
  const { entries } = JSON.parse(readFileSync(new URL(relative, import.meta.url), 'utf8')) as { entries: unknown[] };
  // The revision 0 fixture keeps its entries as stored text.
  return entries.map((entry) => (typeof entry === 'string' ? JSON.parse(entry) : entry) as Entry);
}

// The published sample ledger, and a ledger written before ledger revisions: old entries must still validate.
const LEDGERS = {
  'docs/vectors/ledger.json': '../docs/vectors/ledger.json',
  revision_0: './fixtures/ledger_revision_0.json',
};

function dataProblems(event_type: string, data: unknown): string | undefined {
  const parsed = EVENT_DATA[event_type as EventType].safeParse(data);
  return parsed.success ? undefined : parsed.error.message;
}

describe('EVENT_DATA, the data schema of each event type', () => {
  it('has a schema for every event type of the catalogue and no other', () => {
    expect(Object.keys(EVENT_DATA).sort()).toEqual(EVENT_TYPES);
  });

  for (const [name, path] of Object.entries(LEDGERS)) {
    it(`accepts the data of every entry of ${name}, and the entries as served`, () => {
      const entries = entriesOf(path);
      expect(entries.length).toBeGreaterThan(5);
      for (const entry of entries) {
        expect(dataProblems(entry.event_type, entry.data), `${entry.event_type} ${JSON.stringify(entry.data)}`).toBe(
          undefined,
        );
        expect(LedgerEntrySchema.safeParse(entry).success).toBe(true);
      }
    });
  }

  const sample = entriesOf(LEDGERS['docs/vectors/ledger.json']);
  const first = (event_type: EventType) => sample.find((entry) => entry.event_type === event_type)!;

  it('refuses a wrong type or a missing value in a required field', () => {
    const moved = first('agent_moved').data;
    expect(dataProblems('agent_moved', { ...moved, ap_spent: String(moved.ap_spent) })).toMatch(/ap_spent/);
    expect(dataProblems('agent_moved', { ...moved, path: ['up'] })).toMatch(/path/);
    const vote = first('vote_cast').data;
    expect(dataProblems('vote_cast', { ...vote, choice: 'maybe' })).toMatch(/choice/);
    const { z: _z, ...dug_without_z } = first('terrain_dug').data;
    expect(dataProblems('terrain_dug', dug_without_z)).toMatch(/"z"/);
    expect(dataProblems('key_rotated', { ...first('key_rotated').data, new_pubkey: 'not a key' })).toMatch(
      /new_pubkey/,
    );
  });

  it('judges a variant by its own fields: standing by reason, structures by kind', () => {
    const exploration = sample.find(
      (entry) => entry.event_type === 'standing_awarded' && entry.data.reason === 'exploration',
    )!.data;
    expect(dataProblems('standing_awarded', exploration)).toBe(undefined);
    expect(dataProblems('standing_awarded', { ...exploration, tiles: '5' })).toMatch(/tiles/);
    expect(dataProblems('standing_awarded', { ...exploration, reason: 'relic_found' })).toMatch(/site/);
    const road = {
      agent_id: exploration.agent_id,
      structure: 'road',
      position: { x: 3, y: 4 },
      ap_spent: 4,
      slag_spent: 6,
    };
    expect(dataProblems('structure_built', road)).toBe(undefined);
    expect(dataProblems('structure_built', { ...road, structure: 'relay_mast' })).toMatch(/relay_id/);
  });

  it('lets data gain fields, as docs/protocol.md promises', () => {
    expect(dataProblems('vote_cast', { ...first('vote_cast').data, weight: 1 })).toBe(undefined);
  });

  it('serves an entry only with the data of its own event type', () => {
    const entry = first('vote_cast');
    expect(LedgerEntrySchema.safeParse({ ...entry, data: first('agent_moved').data }).success).toBe(false);
    expect(LedgerEntrySchema.safeParse({ ...entry, event_type: 'vote_counted' }).success).toBe(false);
  });
});
