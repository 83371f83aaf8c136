/**
 * Engine time is an integer count of milliseconds since the Unix epoch, carried on
 * every logged action. This module only formats such values; it never reads a clock.
 */
export type EpochMs = number;

/** ISO 8601 with an explicit offset, as the protocol writes every timestamp. */
export function isoAt(at_ms: EpochMs): string {
  return new Date(at_ms).toISOString().replace('Z', '+00:00');
}
