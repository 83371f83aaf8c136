import type { LedgerReader } from '../../../engine/index.js';

/** Entries one request indexes at most: a long ledger's index is made over several requests, never in one. */
export const ledger_index_step_max = 20_000;

/** What the store is read in while indexing. */
const read_step = 1_000;

/**
 * The explorer's index of the ledger: the seqs of each event type and of each actor, in
 * seq order, so a filtered page reads the entries it shows instead of scanning thousands
 * (a filter of a rare type on a 26k-entry ledger cost 25 to 50 ms a request). Entries are
 * never rewritten in place, except by a restore's new ledger revision, which starts a new
 * index; the index follows the head as it grows, indexing at most ledger_index_step_max
 * entries a request, and says how far it reaches so a view can scan the rest.
 */
export class LedgerIndex {
  private by_type = new Map<string, number[]>();
  private by_actor = new Map<string, number[]>();
  private indexed_to = 0;
  private revision = -1;

  constructor(private readonly ledger: LedgerReader) {}

  /**
   * Brings the index toward the head (one step) and says up to which seq it holds every
   * entry. `revision` is the state's ledger revision: a new one starts afresh.
   */
  catchUp(revision: number): number {
    if (revision !== this.revision) {
      this.by_type = new Map();
      this.by_actor = new Map();
      this.indexed_to = 0;
      this.revision = revision;
    }
    const head = this.ledger.head().seq;
    if (this.indexed_to > head) this.indexed_to = 0;
    const until = Math.min(head, this.indexed_to + ledger_index_step_max);
    while (this.indexed_to < until) {
      const from = this.indexed_to + 1;
      const jsons = this.ledger.page(from, Math.min(read_step, until - this.indexed_to));
      if (jsons.length === 0) break;
      jsons.forEach((json, offset) => {
        const { event_type, actor } = JSON.parse(json) as { event_type: string; actor: string };
        append(this.by_type, event_type, from + offset);
        append(this.by_actor, actor, from + offset);
      });
      this.indexed_to = from + jsons.length - 1;
    }
    return this.indexed_to;
  }

  /** The seqs (ascending, up to the indexed end) an entry must be among to pass both filters. */
  candidates(filters: { type?: string; actor?: string }): readonly number[] | undefined {
    const lists = [
      filters.type === undefined ? undefined : (this.by_type.get(filters.type) ?? []),
      filters.actor === undefined ? undefined : (this.by_actor.get(filters.actor) ?? []),
    ].filter((list): list is number[] => list !== undefined);
    if (lists.length === 0) return undefined;
    // Either list holds every match; the shorter is read (each candidate is still checked against both filters).
    return lists.reduce((shortest, list) => (list.length < shortest.length ? list : shortest));
  }
}

function append(index: Map<string, number[]>, key: string, seq: number): void {
  const list = index.get(key);
  if (list) list.push(seq);
  else index.set(key, [seq]);
}

const indexes = new WeakMap<LedgerReader, LedgerIndex>();

/** The index of an app's ledger reader (the app makes one reader, so it has one index). */
export function ledgerIndexOf(ledger: LedgerReader): LedgerIndex {
  let index = indexes.get(ledger);
  if (!index) indexes.set(ledger, (index = new LedgerIndex(ledger)));
  return index;
}
