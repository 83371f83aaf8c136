import { entryTiles } from '../../client/ledger_positions.js';
import type { WireEntry } from '../../client/ledger_check.js';
import { BIOMES, inWorld, type LedgerReader, type SocietyState, tileIndex } from '../../engine/index.js';

/** Entries one page request folds at most: a long ledger is counted over a few requests, saying so meanwhile. */
export const vitals_fold_max = 50_000;
const fold_step = 1_000;

export interface DayVitals {
  /** Entries the ledger gained that UTC day. */
  entries: number;
  /** Signed requests that landed (entries carrying a member's proof). */
  acts: number;
  registrations: number;
}

/**
 * The society's vitals over time, folded from the public ledger: per UTC day, entries,
 * acts and registrations, and the AP spent on each biome. It remembers how far it has
 * read and reads only newer entries on the next request; it holds a few numbers a day,
 * never the entries.
 */
export class Vitals {
  folded_seq = 0;
  /** For the test that a request reads only what is new. */
  entries_read = 0;
  readonly days = new Map<string, DayVitals>();
  readonly ap_by_biome = new Map<string, number>();

  /** Reads what the ledger gained since the last call, at most vitals_fold_max entries. */
  fold(ledger: LedgerReader, state: Readonly<SocietyState>): void {
    const head = ledger.head().seq;
    let budget = vitals_fold_max;
    while (this.folded_seq < head && budget > 0) {
      const count = Math.min(fold_step, head - this.folded_seq, budget);
      const jsons = ledger.page(this.folded_seq + 1, count);
      if (jsons.length === 0) break;
      for (const json of jsons) this.add(JSON.parse(json) as WireEntry, state);
      this.folded_seq += jsons.length;
      this.entries_read += jsons.length;
      budget -= jsons.length;
    }
  }

  private add(entry: WireEntry, state: Readonly<SocietyState>): void {
    const day = entry.at.slice(0, 10);
    const vitals = this.days.get(day) ?? { entries: 0, acts: 0, registrations: 0 };
    vitals.entries += 1;
    if (entry.proof) vitals.acts += 1;
    // Members as the page counts them: the Founder registers at genesis but is not a member.
    if (entry.event_type === 'agent_registered' && entry.data.role !== 'founder') vitals.registrations += 1;
    this.days.set(day, vitals);
    const ap = entry.data.ap_spent;
    if (typeof ap === 'number' && ap > 0) {
      // Where the AP went: the tile moved to, dug, built on (a move's last tile stands for its path).
      const tiles = entryTiles(entry.data);
      const tile = tiles.at(-1);
      if (tile && inWorld(tile.x, tile.y)) {
        const biome = BIOMES[state.world.terrain.biome[tileIndex(tile.x, tile.y)]!] ?? 'unknown';
        this.ap_by_biome.set(biome, (this.ap_by_biome.get(biome) ?? 0) + ap);
      }
    }
  }
}

/** One fold per ledger reader (the app makes one), kept across requests. */
const by_ledger = new WeakMap<LedgerReader, Vitals>();

export function vitalsOf(ledger: LedgerReader, state: Readonly<SocietyState>): Vitals {
  let vitals = by_ledger.get(ledger);
  if (!vitals) {
    vitals = new Vitals();
    by_ledger.set(ledger, vitals);
  }
  vitals.fold(ledger, state);
  return vitals;
}
