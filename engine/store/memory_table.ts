import { lowerBound, upperBound } from '../sorted_search.js';
import type { KeyRange, Table, TableKey } from './tables.js';

/**
 * A Table in memory: a map and its keys kept sorted. Keys mostly arrive in rising
 * order (ticks, seqs), so an insert is usually a push. Ranges read the keys as they
 * were when the read began, so removing while iterating (retention, pruning) is safe,
 * as it is in LMDB's read transactions. Values are stored as given: the caller hands
 * over copies where it matters (see MemoryStore).
 */
export class MemoryTable<V, K extends TableKey = number> implements Table<V, K> {
  private readonly values = new Map<K, V>();
  private keys: K[] = [];

  get(key: K): V | undefined {
    return this.values.get(key);
  }

  put(key: K, value: V): Promise<boolean> {
    if (!this.values.has(key)) {
      const last = this.keys[this.keys.length - 1];
      if (last === undefined || last < key) this.keys.push(key);
      else this.keys.splice(lowerBound(this.keys, key), 0, key);
    }
    this.values.set(key, value);
    return Promise.resolve(true);
  }

  remove(key: K): Promise<boolean> {
    if (!this.values.delete(key)) return Promise.resolve(false);
    this.keys.splice(lowerBound(this.keys, key), 1);
    return Promise.resolve(true);
  }

  *getKeys(range: KeyRange<K> = {}): Iterable<K> {
    for (const key of this.keysIn(range)) yield key;
  }

  *getRange(range: KeyRange<K> = {}): Iterable<{ key: K; value: V }> {
    for (const key of this.keysIn(range)) {
      const value = this.values.get(key);
      // Removed after this read began (retention or pruning behind it): skipped.
      if (value !== undefined) yield { key, value };
    }
  }

  /** The keys of the range, in its order, as a copy. */
  private keysIn({ start, end, reverse = false, limit = Infinity }: KeyRange<K>): K[] {
    let selected: K[];
    if (!reverse) {
      const from = start === undefined ? 0 : lowerBound(this.keys, start);
      const to = end === undefined ? this.keys.length : lowerBound(this.keys, end);
      selected = this.keys.slice(from, Math.max(from, to));
    } else {
      // Reversed as LMDB does: from start (inclusive) down to end (exclusive).
      const from = start === undefined ? this.keys.length : upperBound(this.keys, start);
      const to = end === undefined ? 0 : upperBound(this.keys, end);
      selected = this.keys.slice(Math.min(to, from), from).reverse();
    }
    return selected.length > limit ? selected.slice(0, limit) : selected;
  }
}
