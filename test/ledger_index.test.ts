import { describe, expect, it } from 'vitest';
import { ledgerView } from '../api/pages/views/ledger.js';
import { ledger_index_step_max } from '../api/pages/views/ledger_index.js';
import { page_size } from '../api/pages/views/paging.js';
import type { LedgerReader, ReadContext, SocietyState } from '../engine/index.js';
import { BOOKKEEPING_EVENTS } from '../render/ledger_sentences.js';

/** A ledger of `count` entries whose types and actors follow a fixed pattern, read as the store reads it. */
function syntheticLedger(count: number): {
  reader: LedgerReader;
  entries: { seq: number; event_type: string; actor: string }[];
} {
  const types = ['agent_moved', 'block_placed', 'motion_filed', 'ap_accrued', 'bulletin_posted'];
  const entries = Array.from({ length: count }, (_, index) => {
    const seq = index + 1;
    // A rare type every 997 entries; the rest cycle.
    const event_type = seq % 997 === 0 ? 'motion_enacted' : types[seq % types.length]!;
    return { seq, event_type, actor: `ag_${String(seq % 7).padStart(32, '0')}` };
  });
  const jsons = entries.map((entry) =>
    JSON.stringify({ ...entry, at: '2026-11-27T00:00:00.000Z', data: {}, prev_hash: '', hash: '' }),
  );
  let head = count;
  return {
    entries,
    reader: {
      head: () => ({ seq: head, hash: '' }),
      page: (from, limit) => jsons.slice(from - 1, Math.min(head, from - 1 + limit)),
      // The tests below grow the ledger by moving the head.
      ...{ grow: (to: number) => (head = to) },
    } as LedgerReader,
  };
}

function contextOf(reader: LedgerReader): ReadContext {
  const state = { ledger_revision: 0, agents: new Map(), governance: { motions: {} } } as unknown as SocietyState;
  return { state, at_ms: 0, ledger: reader } as unknown as ReadContext;
}

/** The page a full scan finds: newest first below `before`, or oldest first above `after`, bookkeeping hidden unless asked. */
function expectedSeqs(
  entries: { seq: number; event_type: string; actor: string }[],
  args: { type?: string; actor?: string; before?: number; after?: number },
): number[] {
  const shown = (entry: (typeof entries)[number]) =>
    (args.type === undefined || entry.event_type === args.type) &&
    (args.actor === undefined || entry.actor === args.actor) &&
    (!BOOKKEEPING_EVENTS.has(entry.event_type) || (args.type !== undefined && BOOKKEEPING_EVENTS.has(args.type)));
  if (args.after !== undefined)
    return entries
      .filter((entry) => entry.seq > args.after! && shown(entry))
      .slice(0, page_size)
      .map((entry) => entry.seq)
      .reverse();
  return entries
    .filter((entry) => entry.seq < (args.before ?? Number.POSITIVE_INFINITY) && shown(entry))
    .reverse()
    .slice(0, page_size)
    .map((entry) => entry.seq);
}

describe('the explorer index', () => {
  it('finds the same page a full scan finds, for every filter and direction, reading only candidates', () => {
    const { reader, entries } = syntheticLedger(15_000);
    const context = contextOf(reader);
    const actor = `ag_${'3'.padStart(32, '0')}`;
    for (const args of [
      { type: 'motion_enacted' },
      { type: 'motion_enacted', before: 9_000 },
      { type: 'motion_enacted', after: 1_000 },
      { type: 'block_placed', before: 12_345 },
      { actor, after: 14_900 },
      { actor, type: 'agent_moved', before: 500 },
      { type: 'no_such_type' },
    ]) {
      const view = ledgerView(context, args);
      expect([args, view.entries.map((entry) => entry.seq)]).toEqual([args, expectedSeqs(entries, args)]);
      // A rare type is found across the whole ledger at once: nothing left unsearched.
      expect(view.searched).toBeNull();
    }
    const rare = ledgerView(context, { type: 'motion_enacted' });
    expect(rare.entries).toHaveLength(15);
    expect(rare.older).toBeNull();
  });

  it('indexes a long ledger over several requests, scanning past its end meanwhile, and follows the head', () => {
    const { reader, entries } = syntheticLedger(ledger_index_step_max * 2 + 500);
    (reader as unknown as { grow(to: number): void }).grow(ledger_index_step_max * 2);
    const context = contextOf(reader);
    const args = { type: 'motion_enacted' };
    // The first request indexes the first step; the newest entries past it are scanned (up to ledger_scan_max).
    const first = ledgerView(context, args);
    expect(first.searched).not.toBeNull();
    const second = ledgerView(context, args);
    expect(second.searched).toBeNull();
    expect(second.entries.map((entry) => entry.seq)).toEqual(
      expectedSeqs(entries.slice(0, ledger_index_step_max * 2), args),
    );
    (reader as unknown as { grow(to: number): void }).grow(ledger_index_step_max * 2 + 500);
    expect(ledgerView(context, args).entries.map((entry) => entry.seq)).toEqual(expectedSeqs(entries, args));
  });
});
