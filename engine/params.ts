import { z } from 'zod';

/**
 * The votable parameters. Their initial values come from the genesis file; after
 * that only an enacted motion changes them. Every value is an integer or a boolean
 * so that state and ledger stay exact.
 */
export const ParamsSchema = z.strictObject({
  ap_at_registration: z.int().min(0).max(1_000_000).default(20),
  ap_interval_seconds: z.int().min(1).max(86_400).default(90),
  ap_per_interval: z.int().min(0).max(1_000).default(1),
  ap_cap: z.int().min(1).max(1_000_000).default(480),
  voting_window_seconds: z.int().min(60).max(30 * 86_400).default(48 * 3600),
  genesis_period: z.boolean().default(true),
});

export type Params = z.output<typeof ParamsSchema>;

export const DEFAULT_PARAMS: Params = ParamsSchema.parse({});
