import { z } from 'zod';
import { StrongPubkeySchema } from './identity.js';
import { ParamsSchema } from './params.js';

/**
 * What founds a society: the world seed, the Founder's public key and the initial
 * votable parameters. It is the payload of the first logged action, so a replay
 * needs nothing but the log.
 */
export const GenesisSchema = z.strictObject({
  society_name: z.string().min(1).max(64).default('Tessera'),
  world_seed: z.string().min(1).max(128).default('tessera-genesis'),
  founder_pubkey: StrongPubkeySchema,
  params: ParamsSchema.default(() => ParamsSchema.parse({})),
});

export type Genesis = z.output<typeof GenesisSchema>;
