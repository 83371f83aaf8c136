/**
 * Why a node of a replicated society stopped, as its exit code (sysexits.h names). A
 * node never exits for a NATS hiccup: those are retried. docs/scaling.md has the table.
 */
export const EXIT_CODES = {
  /** Another node writes now (its lease was taken, or the log refused an append of an ended term). Restart it: it follows. */
  fenced: 75,
  /** A followed tick does not replay here, or does not verify: this store is not the log's. Restore, do not restart. */
  diverged: 65,
  /** Anything else: a bug, reported with its stack. */
  internal: 70,
} as const;
