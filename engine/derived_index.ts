/**
 * An index derived from a part of the state (a record, a list, a map) and kept beside
 * it, never in it, so the state image and its hash keep their form. It is made from its
 * source on first use, one per source object, so a state restored from an image (new
 * objects) gets its own; the code that changes the source keeps a made index current.
 */
export class DerivedIndex<Source extends object, Index> {
  private readonly made = new WeakMap<Source, Index>();

  constructor(private readonly make: (source: Source) => Index) {}

  /** The source's index, made now if it was not yet. */
  of(source: Source): Index {
    let index = this.made.get(source);
    if (index === undefined) this.made.set(source, (index = this.make(source)));
    return index;
  }

  /** The source's index if one was made: a change to the source need not make one nobody reads. */
  ifMade(source: Source): Index | undefined {
    return this.made.get(source);
  }
}
