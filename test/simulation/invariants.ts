import type { StreamMessage } from '../../api/cluster/log_stream.js';
import { verifyConsistency, verifyInclusion } from '../../client/tlog/merkle.js';
import { nativeHasher } from '../../engine/log/native_hasher.js';
import type { IntentOutcome } from './sim_client.js';
import type { NodeExit, SimNode } from './sim_node.js';

/**
 * What must hold after every step of a simulation, checked as it runs, each broken
 * rule written down once with the simulated time it was seen at:
 * - one term at a time appends to the log: every tick's message was sent by the term
 *   whose start is the last before it, and ticks follow one another;
 * - no intent (one client's one message, however often it was signed) is on the ledger twice;
 * - every acknowledged act is on the ledger at the seq its answer gave, and no act its
 *   agent was told was refused is on it;
 * - nodes at the same ledger head hold the same entry there (and, at the end, the same state);
 * - no node stops for a divergence or a bug (exit 65 or 70);
 * - at the end, every receipt an agent got verifies against every node's tree.
 */
export class Invariants {
  readonly violations: string[] = [];
  private log_checked = 0;
  private term = '';
  private last_tick = 0;
  private ledger_scanned = 0;
  private readonly hashes: string[] = [];
  private readonly intents_seen = new Map<string, number>();
  private readonly intent_at_seq = new Map<number, string>();
  private acks_checked = new Map<string, number>();

  constructor(
    private readonly now_ms: () => number,
    private readonly message_ids: readonly string[],
    /** false: the log has no term starts (the unfenced log), so only the order of its ticks is held to. */
    private readonly fenced: boolean,
  ) {}

  private violated(what: string): void {
    if (this.violations.length < 20) this.violations.push(`at ${Math.round(this.now_ms())} ms: ${what}`);
  }

  checkLog(messages: readonly StreamMessage[]): void {
    for (; this.log_checked < messages.length; this.log_checked++) {
      const message = messages[this.log_checked]!;
      const id = this.message_ids[message.seq] ?? '';
      if (message.kind === 'term') {
        this.term = (JSON.parse(message.data) as { term: string }).term;
        continue;
      }
      const tick = (JSON.parse(message.data) as { record: { tick: number } }).record.tick;
      if (tick !== this.last_tick + 1)
        this.violated(`the log's message ${message.seq} holds tick ${tick} after tick ${this.last_tick}`);
      this.last_tick = tick;
      const writer = id.slice(0, id.lastIndexOf(':'));
      if (this.fenced && writer !== this.term)
        this.violated(
          `tick ${tick} (message ${message.seq}) was appended by term ${writer} after term ${this.term} began`,
        );
    }
  }

  /** Reads the newest entries of the node furthest ahead, holding every node to the same entries. */
  checkLedger(nodes: readonly SimNode[]): void {
    for (const node of nodes) {
      const head = node.store.ledgerHead();
      const known = this.hashes[head.seq];
      if (known !== undefined && known !== head.hash)
        this.violated(
          `${node.options.id} holds ${head.hash.slice(0, 12)} at seq ${head.seq}, another node ${known.slice(0, 12)}`,
        );
    }
    const ahead = nodes.reduce((best, node) =>
      node.store.ledgerHead().seq > best.store.ledgerHead().seq ? node : best,
    );
    for (const entry of ahead.store.ledgerEntries(this.ledger_scanned + 1)) {
      this.ledger_scanned = entry.seq;
      this.hashes[entry.seq] = ahead.store.ledgerHash(entry.seq)!;
      const intent = intentOf(entry.json);
      if (intent === undefined) continue;
      const times = (this.intents_seen.get(intent) ?? 0) + 1;
      this.intents_seen.set(intent, times);
      this.intent_at_seq.set(entry.seq, intent);
      if (times > 1) this.violated(`${intent} is on the ledger ${times} times (again at seq ${entry.seq})`);
    }
  }

  checkAcknowledged(outcomes: readonly IntentOutcome[], client: string): void {
    for (let index = this.acks_checked.get(client) ?? 0; index < outcomes.length; index++) {
      const outcome = outcomes[index]!;
      if (!('acknowledged_seq' in outcome)) {
        this.acks_checked.set(client, index + 1);
        continue;
      }
      if (outcome.acknowledged_seq > this.ledger_scanned) return;
      const there = this.intent_at_seq.get(outcome.acknowledged_seq);
      if (there !== outcome.intent)
        this.violated(
          `${outcome.intent} was acknowledged at seq ${outcome.acknowledged_seq}, which holds ${there ?? 'something else'}`,
        );
      this.acks_checked.set(client, index + 1);
    }
  }

  /**
   * At the end: nothing acknowledged is missing from the ledger, and nothing an agent was
   * told was refused (a final NONCE_INVALID included: it says the act was not applied, and
   * never will be) is on it.
   */
  checkNothingLost(outcomes: readonly IntentOutcome[]): void {
    for (const outcome of outcomes) {
      if (!('refused' in outcome) || !this.intents_seen.has(outcome.intent)) continue;
      // The act registers the intent's own key: KEY_TAKEN means a second application met the first one's key.
      if (outcome.refused === 'KEY_TAKEN')
        this.violated(
          `${outcome.intent} was applied twice: its second application was refused KEY_TAKEN, the key its first had registered`,
        );
      else this.violated(`${outcome.intent} was refused ${outcome.refused} to its agent, yet it is on the ledger`);
    }
    for (const outcome of outcomes)
      if ('acknowledged_seq' in outcome && outcome.acknowledged_seq > this.ledger_scanned)
        this.violated(
          `${outcome.intent} was acknowledged at seq ${outcome.acknowledged_seq}, past the ledger's end ${this.ledger_scanned}`,
        );
  }

  /**
   * Every receipt an agent was given verifies against every node's tree as it ends: the
   * node's own leaf is at the receipt's place in the tree the receipt names, and that
   * tree is a prefix of the node's (a consistency proof), as against any later checkpoint.
   */
  checkReceipts(outcomes: readonly IntentOutcome[], nodes: readonly SimNode[]): void {
    for (const node of nodes) {
      const tree = node.running?.engine.log_tree;
      if (!tree) continue;
      const size = tree.size;
      const root = tree.root(size);
      for (const outcome of outcomes) {
        if (!('receipt' in outcome)) continue;
        const { seq, size: receipt_size, root: receipt_root, proof } = outcome.receipt;
        if (receipt_size > size) continue;
        const included = verifyInclusion(
          nativeHasher,
          seq - 1,
          receipt_size,
          tree.leafHash(seq - 1),
          proof,
          receipt_root,
        );
        const extended = verifyConsistency(
          nativeHasher,
          receipt_size,
          size,
          receipt_root,
          root,
          tree.consistencyProof(receipt_size, size),
        );
        if (!included || !extended)
          this.violated(
            `the receipt for seq ${seq} (tree of ${receipt_size}) does not verify against ${node.options.id}'s tree of ${size}`,
          );
      }
    }
  }

  checkExit(exit: NodeExit): void {
    if (exit.code === 65 || exit.code === 70) this.violated(`${exit.node} exited ${exit.code}: ${exit.why}`);
  }

  get ledger_seq(): number {
    return this.ledger_scanned;
  }
}

/** The backup key a key_backup_registered entry's signed request names: the intent it carries out. */
function intentOf(json: string): string | undefined {
  if (!json.includes('"key_backup_registered"')) return undefined;
  const entry = JSON.parse(json) as { proof?: { body?: string } };
  if (!entry.proof?.body) return undefined;
  return (JSON.parse(entry.proof.body) as { payload?: { backup_pubkey?: string } }).payload?.backup_pubkey;
}
