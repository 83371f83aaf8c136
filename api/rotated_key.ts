/**
 * A request signed by a primary key the agent rotated away. After a rotation the old key is
 * often still in use somewhere (a stale key file, another process); its signature fails like
 * any other, and the generic hint ("the request is not what was signed") would send the agent
 * looking at its body. So, on a refused signature only, it is tried under the agent's former
 * keys, and a match is refused with the rotation's seq and what to sign with instead.
 */
import type Koa from 'koa';
import type { Context } from 'koa';
import { RefusalError } from './refusal_error.js';

interface FormerKey {
  pubkey: string;
  rotated_at_seq: number;
}

/**
 * The primary keys each agent rotated away, from the ledger's key_rotated entries: what
 * tells a signature by an old key from a request that is not what was signed. The
 * society's state keeps only current keys, so the ledger is read once, on the first
 * refused signature that needs it, and kept up to date from the committed entries.
 */
export class FormerPrimaryKeys {
  private by_agent: Map<string, FormerKey[]> | undefined;
  private read_through_seq = 0;

  constructor(private readonly ledger: () => Iterable<{ seq: number; json: string }>) {}

  of(agent_id: string): readonly FormerKey[] {
    if (!this.by_agent) {
      this.by_agent = new Map();
      this.record(this.ledger());
    }
    return this.by_agent.get(agent_id) ?? [];
  }

  /** Entries as they commit; before the first question nothing is kept (the ledger is read then). */
  record(entries: Iterable<{ seq: number; json: string }>): void {
    if (!this.by_agent) return;
    for (const { seq, json } of entries) {
      if (seq <= this.read_through_seq) continue;
      this.read_through_seq = seq;
      // Most entries are not rotations: their text tells, without parsing them.
      if (!json.includes('"key_rotated"')) continue;
      const entry = JSON.parse(json) as { event_type?: string; data?: { agent_id?: string; old_pubkey?: string } };
      const { agent_id, old_pubkey } = entry.data ?? {};
      if (entry.event_type !== 'key_rotated' || !agent_id || !old_pubkey) continue;
      this.by_agent.set(agent_id, [
        ...(this.by_agent.get(agent_id) ?? []),
        { pubkey: old_pubkey, rotated_at_seq: seq },
      ]);
    }
  }
}

const FORMER_KEYS = 'tessera_former_primary_keys';

/** Hands the app's requests the former keys (the Koa app context is where every request's ctx looks). */
export function provideFormerKeys(app: Koa, former_keys: FormerPrimaryKeys): void {
  (app.context as unknown as Record<string, unknown>)[FORMER_KEYS] = former_keys;
}

function formerKeysOf(ctx: Context): FormerPrimaryKeys | undefined {
  const found = (ctx as unknown as Record<string, unknown>)[FORMER_KEYS];
  return found instanceof FormerPrimaryKeys ? found : undefined;
}

/**
 * SIG_INVALID naming the rotation when the signature is by one of the agent's primary keys
 * rotated away (`signedBy` checks a key against the request); undefined when none signed it.
 */
export function rotatedKeyRefusal(
  ctx: Context,
  agent_id: string,
  signedBy: (pubkey: string) => boolean,
): RefusalError | undefined {
  const rotated = formerKeysOf(ctx)
    ?.of(agent_id)
    .find((former) => signedBy(former.pubkey));
  if (!rotated) return undefined;
  return RefusalError.of('SIG_INVALID', undefined, {
    cause: 'key_rotated',
    rotated_at_seq: rotated.rotated_at_seq,
    hint:
      `This key is no longer the agent's primary key: it was rotated away at seq ${rotated.rotated_at_seq} (key_rotated). ` +
      'Sign with the current primary key, the new key the rotation installed (`tessera-agent rotate` wrote it into the key file).',
  });
}
