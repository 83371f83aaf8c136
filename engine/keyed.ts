/**
 * Records keyed by ids, some of them chosen by clients (motion and module ids in
 * paths and payloads, agent ids, processor ids). On an ordinary object, `record[id]`
 * for an id such as "constructor" or "__proto__" finds Object.prototype's members
 * instead of nothing, and assigning "__proto__" replaces the prototype. So these
 * records are made without a prototype, and every lookup of an outside id asks for
 * the record's own value only: either alone keeps inherited names out, and a record
 * restored or built the ordinary way by mistake is still safe to read.
 *
 * They stay plain objects rather than Maps so that the snapshot image and the state
 * hash (JCS of the image) keep their form.
 */
export type Keyed<T> = Record<string, T>;

/** An empty keyed record: no prototype, so no id names an inherited property. */
export function keyedRecord<T>(): Keyed<T> {
  return Object.create(null) as Keyed<T>;
}

/** A keyed record with the own entries of `record` (e.g. one decoded from a snapshot). */
export function keyedCopy<T>(record: Readonly<Record<string, T>>): Keyed<T> {
  const copy = keyedRecord<T>();
  for (const [key, value] of Object.entries(record)) copy[key] = value;
  return copy;
}

/** The record's own value under `key`; never an inherited one. */
export function ownValue<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}

/**
 * Whether an outside id may become a key that is kept in the state. "__proto__" may
 * not: the snapshot's msgpack decoder renames it, so a restart would not restore it.
 */
export function isStorableKey(key: string): boolean {
  return key !== '__proto__';
}
