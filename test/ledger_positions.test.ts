import { describe, expect, it } from 'vitest';
import { entryTiles, entryTouchesChunk } from '../client/ledger_positions.js';
import { EVENT_CATALOGUE } from '../engine/events/event_catalogue.js';

describe('where a ledger entry happened', () => {
  it('is the tile every event declares, wherever its catalogue entry says it is', () => {
    const declared = Object.entries(EVENT_CATALOGUE).filter(([, event]) => event.tile !== undefined);
    expect(declared.length).toBeGreaterThan(5);
    for (const [event_type, event] of declared) {
      const tile = { x: 130, y: 70 };
      const data = event.tile === '.' ? { ...tile, z: 3 } : { [event.tile!]: { ...tile, z: 3 } };
      expect(entryTiles(data), event_type).toEqual([tile]);
      // Chunk (2, 1) holds tiles 128 to 191 across and 64 to 127 down.
      expect(entryTouchesChunk(data, 2, 1), event_type).toBe(true);
      expect(entryTouchesChunk(data, 1, 1), event_type).toBe(false);
    }
  });

  it('counts both ends of a move, where it came from first and where it went last', () => {
    const move = { from: { x: 10, y: 10 }, to: { x: 70, y: 10 }, path: [] };
    expect(entryTiles(move)).toEqual([
      { x: 10, y: 10 },
      { x: 70, y: 10 },
    ]);
    expect(entryTouchesChunk(move, 0, 0)).toBe(true);
    expect(entryTouchesChunk(move, 1, 0)).toBe(true);
  });

  it('finds a relic where it was dug up (its tile is under site), which a fixed list of fields missed', () => {
    expect(entryTouchesChunk({ relic: 'a coin', site: { x: 2000, y: 5, z: 9 } }, 31, 0)).toBe(true);
  });

  it('is nowhere for an entry without whole coordinates', () => {
    expect(entryTiles({ x: 1.5, y: 2 })).toEqual([]);
    expect(entryTiles(null)).toEqual([]);
    expect(entryTiles({ to: 'north' })).toEqual([]);
  });
});
