import { DerivedIndex } from '../derived_index.js';
import { invariant } from '../invariant.js';
import type { EpochMs } from '../time.js';
import type { BulletinItem } from './governance_state.js';

/**
 * Each member's post times on the bulletin, found without reading the whole board. The
 * board keeps every post, and the daily allowance (checked by every post and reported on
 * every answer to one) filtered all of them for the poster's: a cost that grew with the
 * board, not with the poster.
 *
 * The board only grows at its end, so the index (engine/derived_index.ts) catches up
 * with whatever was appended since it last looked.
 */
interface Index {
  indexed: number;
  times: Map<string, EpochMs[]>;
}

const indexes = new DerivedIndex((_bulletin: readonly BulletinItem[]): Index => ({ indexed: 0, times: new Map() }));

/** The member's post times, oldest first (the board's order). */
export function postTimesOf(bulletin: readonly BulletinItem[], agent_id: string): readonly EpochMs[] {
  const index = indexes.of(bulletin);
  invariant(index.indexed <= bulletin.length, 'the bulletin board shrank: posts are never removed');
  for (; index.indexed < bulletin.length; index.indexed++) {
    const item = bulletin[index.indexed]!;
    let times = index.times.get(item.agent_id);
    if (!times) index.times.set(item.agent_id, (times = []));
    times.push(item.at_ms);
  }
  return index.times.get(agent_id) ?? [];
}
