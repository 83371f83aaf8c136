/**
 * What a resuming client is told when the seq it last saw is past this ledger's head:
 * that seq came from a history this service no longer holds (a restore from a backup
 * rewound the ledger, and new entries took the old seqs), so the entries after the head
 * are not the ones it saw, and resuming after its seq would skip them silently.
 */
export interface HistoryRewritten {
  /** The first seq of the history the client did not see; the stream resumes there. */
  rewritten_from: number;
  /** The Last-Event-ID the client sent. */
  last_event_id: number;
}

/** undefined when the client's last seq is in this ledger's history as far as the service can tell (at or below its head). */
export function historyRewritten(last_seen_seq: number, head_seq: number): HistoryRewritten | undefined {
  if (last_seen_seq <= head_seq) return undefined;
  return { rewritten_from: head_seq + 1, last_event_id: last_seen_seq };
}

/** The `rewritten` event, sent first on such a stream; it has no id, so a reconnect still resumes after the last entry received. */
export function rewrittenEvent(rewritten: HistoryRewritten): string {
  return `event: rewritten\ndata: ${JSON.stringify(rewritten)}\n\n`;
}
