import type { AppDeps } from './app.js';
import type { LedgerReader, LmdbStore, ReadContext } from '../engine/index.js';

/** The committed ledger as the read views see it. */
export function ledgerReaderOf(store: LmdbStore): LedgerReader {
  return { head: () => store.ledgerHead(), page: (from, limit) => store.ledgerPage(from, limit) };
}

/**
 * What a view of the read catalogue sees, taken afresh for each request (a read or a tool
 * call); the ledger reader is the app's one, made once.
 */
export function readContextOf(
  deps: Pick<AppDeps, 'engine' | 'clock' | 'chunks' | 'started_at_ms' | 'transparency'>,
  ledger: LedgerReader,
): ReadContext {
  const { engine } = deps;
  return {
    state: engine.state,
    at_ms: deps.clock(),
    ledger,
    chunks: deps.chunks,
    host: {
      started_at_ms: deps.started_at_ms,
      queue_depth: engine.queue_depth,
      log: () => deps.transparency.head(),
      receipt: (seq, entry_json) => deps.transparency.receipt(seq, entry_json),
    },
  };
}
