import { z } from 'zod';
import { PUBKEY_PATTERN } from './identity.js';
import { ParamsSchema } from './params.js';

/**
 * What founds a society: the world seed, the Founder's public key and the initial
 * votable parameters. It is the payload of the first logged action, so a replay
 * needs nothing but the log.
 */
export const GenesisSchema = z.strictObject({
  society_name: z.string().min(1).max(64).default('Tessera'),
  world_seed: z.string().min(1).max(128).default('tessera-genesis'),
  founder_pubkey: z.string().regex(PUBKEY_PATTERN, 'must be a base64url ed25519 public key'),
  params: ParamsSchema.default(() => ParamsSchema.parse({})),
});

export type Genesis = z.output<typeof GenesisSchema>;
