// Binary search in an ascending array, for the places that keep one instead of an index
// (the electorate's first-act times, the in-memory store's keys, the ledger page's seqs).

/** The first position whose value is at least `value` (= how many values are below it). */
export function lowerBound<T extends number | string>(ascending: readonly T[], value: T): number {
  let low = 0;
  let high = ascending.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ascending[middle]! < value) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** The first position whose value is above `value` (= how many values are at most it). */
export function upperBound<T extends number | string>(ascending: readonly T[], value: T): number {
  let low = 0;
  let high = ascending.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (ascending[middle]! <= value) low = middle + 1;
    else high = middle;
  }
  return low;
}
