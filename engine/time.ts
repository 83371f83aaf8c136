/**
 * Engine time is an integer count of milliseconds since the Unix epoch, carried on
 * every logged action. This module only formats such values; it never reads a clock.
 */
export type EpochMs = number;

let last_ms = Number.NaN;
let last_iso = '';

/** ISO 8601 with an explicit offset, as the protocol writes every timestamp. */
export function isoAt(at_ms: EpochMs): string {
  // Every entry of a tick shares one time; remembering the last answer saves a Date per entry.
  if (at_ms !== last_ms) {
    last_iso = new Date(at_ms).toISOString().replace('Z', '+00:00');
    last_ms = at_ms;
  }
  return last_iso;
}
