import type { LoggedAction, TickRecord } from '../apply.js';
import type { ChainedEntry, LedgerEntry, Proof } from '../ledger.js';
import { StoreIntegrityError, storedHashOf } from '../ledger_integrity.js';

/**
 * An action as the log table keeps it: a signed request whose first ledger entry
 * carries its proof verbatim names that entry, by seq and hash (proof_in_entry),
 * instead of repeating the proof, which is half of a signed act's record (the signed
 * body, escaped once more, its nonce and signature: a message's record takes 333 bytes
 * instead of 638, a vote's 207 instead of 429).
 * The entry is written in the same transaction as the record, so it is there whenever
 * the record is; its hash in the record means an edit of that entry, its hash
 * recomputed, is found as soon as the record is read (at start-up, as an edited proof
 * was found when the record held the proof itself). Records written before this form,
 * and actions whose entry shows only the body's digest (a refused Bedrock filing),
 * keep the proof inline; both read the same.
 */
interface StoredAction extends Omit<LoggedAction, 'proof'> {
  proof?: Proof;
  proof_in_entry?: { seq: number; hash: string };
}

const quote = JSON.stringify;

/**
 * A tick's log record as the UTF-8 bytes of its stored JSON, written an action at a
 * time into a buffer kept between ticks (one JSON.stringify of a busy tick is a string
 * of hundreds of kilobytes, read again to encode it).
 */
export class RecordWriter {
  private scratch = Buffer.allocUnsafe(64 * 1024);

  /** `entries` are the tick's ledger entries: where the proofs the record points at are. */
  bytes(record: TickRecord, entries: readonly ChainedEntry[]): Buffer {
    let at = this.write(`{"tick":${quote(record.tick)},"at_ms":${quote(record.at_ms)},"actions":[`, 0);
    // Actions and the entries they produced come in the same order: one pass over both.
    let next_entry = 0;
    record.actions.forEach((action, index) => {
      let carrier: ChainedEntry | undefined;
      if (action.proof) {
        const found = carrierIndex(entries, next_entry, action.proof);
        if (found >= 0) {
          carrier = entries[found];
          next_entry = found + 1;
        }
      }
      const text = storedActionJson(action, carrier);
      at = this.write(index === 0 ? text : `,${text}`, at);
    });
    at = this.write(']}', at);
    // The scratch buffer is written over by the next tick; the store keeps its own copy until the write lands.
    return Buffer.from(this.scratch.subarray(0, at));
  }

  private write(text: string, at: number): number {
    // A UTF-16 unit takes at most 3 UTF-8 bytes.
    if (at + 3 * text.length > this.scratch.length) {
      const larger = Buffer.allocUnsafe(Math.max(2 * this.scratch.length, at + 3 * text.length));
      this.scratch.copy(larger, 0, 0, at);
      this.scratch = larger;
    }
    return at + this.scratch.write(text, at);
  }
}

/**
 * Where, from `from` on, the entry chained with this very proof object is; -1 where none
 * is (an action whose entry shows only its body's digest was chained with another object).
 */
function carrierIndex(entries: readonly ChainedEntry[], from: number, proof: Proof): number {
  for (let index = from; index < entries.length; index++) if (entries[index]!.proof === proof) return index;
  return -1;
}

/** The action's JSON, its proof replaced by the entry that carries it where there is one. */
function storedActionJson(action: LoggedAction, carrier: ChainedEntry | undefined): string {
  if (carrier === undefined) return quote(action);
  const { act, actor, payload, pom } = action;
  const pom_text = pom === undefined ? '' : `,"pom":${quote(pom)}`;
  const pointer = `"proof_in_entry":{"seq":${carrier.seq},"hash":"${carrier.hash}"}`;
  return `{"act":${quote(act)},"actor":${quote(actor)},"payload":${quote(payload)},${pointer}${pom_text}}`;
}

/** A damaged store: a record names a ledger entry for its proof that is not the one it was written with. */
export class RecordProofError extends StoreIntegrityError {
  override name = 'RecordProofError';
}

/**
 * A stored record read back as the engine logged it, each pointed-at proof taken from
 * its ledger entry (`ledgerJson`: the store's served JSON of an entry).
 */
export function parseRecord(text: string, ledgerJson: (seq: number) => string | undefined): TickRecord {
  const record = JSON.parse(text) as Omit<TickRecord, 'actions'> & { actions: StoredAction[] };
  const actions = record.actions.map((action): LoggedAction => {
    const carrier = action.proof_in_entry;
    if (carrier === undefined) return action as LoggedAction;
    const { act, actor, payload, pom } = action;
    // A new object in the live action's shape (a deleted key would leave it a slow dictionary for replay).
    const proof = proofFromEntry(record.tick, actor, carrier, ledgerJson(carrier.seq));
    return pom === undefined ? { act, actor, payload, proof } : { act, actor, payload, proof, pom };
  });
  return { tick: record.tick, at_ms: record.at_ms, actions };
}

const PROOF_KEY = ',"proof":{';

/** A signed request's proof as parsed from an entry: every field a string, or it is none. */
function isBodyProof(value: unknown): value is Proof {
  if (typeof value !== 'object' || value === null) return false;
  const { method, path, nonce, body, signature } = value as Record<string, unknown>;
  return [method, path, nonce, body, signature].every((field) => typeof field === 'string');
}

/**
 * The proof an entry carries, read from its stored text without parsing the rest: in
 * the JCS key order the proof is the entry's last key before seq, and an object of
 * strings only, so its text runs from the last `,"proof":{` before the last `,"seq":`
 * (quotes inside strings are escaped; "seq" or "proof" keys in the data come earlier)
 * to there; a `proof` key nested in the data would leave text after its object, which
 * does not parse. A property test holds this to the proof of the entry parsed whole
 * (test/canonical_entry.test.ts).
 */
function proofFromEntry(
  tick: number,
  actor: string,
  { seq, hash }: { seq: number; hash: string },
  json: string | undefined,
): Proof {
  const damaged = (why: string) =>
    new RecordProofError(seq, `the log record of tick ${tick} takes an action's proof from this entry, ${why}`);
  if (json === undefined) throw damaged('which the store does not hold');
  const stored_hash = storedHashOf(json);
  if (stored_hash !== hash) throw damaged(`written with hash ${hash}; the stored entry's is ${stored_hash}`);
  const seq_at = json.lastIndexOf(',"seq":');
  const proof_at = json.lastIndexOf(PROOF_KEY, seq_at);
  let proof: unknown;
  try {
    proof = seq_at < 0 || proof_at < 0 ? undefined : JSON.parse(json.slice(proof_at + PROOF_KEY.length - 1, seq_at));
  } catch {
    proof = undefined;
  }
  if (!isBodyProof(proof)) throw damaged('which carries no signed body');
  if (!json.startsWith(`{"actor":${quote(actor)},`)) {
    const entry_actor = (JSON.parse(json) as LedgerEntry).actor;
    throw damaged(`whose actor is ${entry_actor}, not ${actor}`);
  }
  const { method, path, nonce, body, signature } = proof;
  return { method, path, nonce, body, signature };
}
