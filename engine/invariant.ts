/**
 * Assertions on engine invariants stay on in production: a broken invariant means
 * the in-memory state can no longer be trusted, and the engine must reload it.
 */
export class InvariantError extends Error {
  override name = 'InvariantError';
}

export function invariant(condition: unknown, message: string): asserts condition {
  if (!condition) throw new InvariantError(message);
}
