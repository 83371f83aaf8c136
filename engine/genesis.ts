import { z } from 'zod';
import { StrongPubkeySchema } from './identity.js';
import { ParamsSchema } from './params.js';
import { textAtMost } from './text.js';

/**
 * Which entries a society's ledger holds, fixed when it is founded: a replay must
 * regenerate every stored entry byte for byte, so a ledger cannot start writing new
 * kinds of entries halfway through its history.
 * - absent (0): the entries as the first societies wrote them;
 * - 1: every act that costs AP is followed by an `ap_spent` entry (apply.ts).
 * Engine.open founds every new society at the current revision; a log written before
 * revisions existed has none in its founding payload and keeps its entries.
 */
export const LEDGER_REVISION = 1;

export { AP_SPENT_LEDGER_REVISION } from './events/event_catalogue.js';

/**
 * What founds a society: the world seed, the Founder's public key and the initial
 * votable parameters. It is the payload of the first logged action, so a replay
 * needs nothing but the log.
 */
export const GenesisSchema = z.strictObject({
  society_name: textAtMost(64).min(1).default('Tessera'),
  world_seed: textAtMost(128).min(1).default('tessera-genesis'),
  founder_pubkey: StrongPubkeySchema,
  params: ParamsSchema.default(() => ParamsSchema.parse({})),
  // No default: a default would give the founding payloads logged before it the new revision on replay.
  ledger_revision: z.int().min(1).max(LEDGER_REVISION).optional(),
});

export type Genesis = z.output<typeof GenesisSchema>;

/** The founding payload of a new society: every default filled, and the current ledger revision unless it names one. */
export function foundingPayload(genesis: unknown): Genesis {
  const parsed = GenesisSchema.parse(genesis);
  return { ...parsed, ledger_revision: parsed.ledger_revision ?? LEDGER_REVISION };
}
