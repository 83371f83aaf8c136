import { z } from 'zod';

const count = (max: number, fallback: number) => z.int().min(0).max(max).default(fallback);

/**
 * The votable parameters ("votable physics" among them). Their initial values come
 * from the genesis file; after that only the engine changes them (governance will
 * enact changes through it). Integers and booleans only, so state stays exact.
 */
export const ParamsSchema = z.strictObject({
  // AP
  ap_at_registration: count(1_000_000, 20),
  ap_interval_seconds: z.int().min(1).max(86_400).default(90),
  ap_per_interval: count(1_000, 1),
  ap_cap: z.int().min(1).max(1_000_000).default(480),
  // Governance
  voting_window_seconds: z
    .int()
    .min(60)
    .max(30 * 86_400)
    .default(48 * 3600),
  genesis_period: z.boolean().default(true),
  quorum_floor: z.int().min(3).max(1_000_000).default(3),
  quorum_rate_percent: z.int().min(0).max(100).default(20),
  genesis_quorum_rate_percent: z.int().min(0).max(100).default(10),
  motions_per_day_max: z.int().min(1).max(1_000).default(6),
  bulletin_posts_per_day_max: z.int().min(1).max(1_000).default(10),
  // Proof of Machine: a program answers in milliseconds; a person cannot within this.
  pom_deadline_ms: z.int().min(200).max(60_000).default(2000),
  // Movement: AP per step onto each biome; water is impassable until bridges are legislated.
  move_ap_plains: count(100, 1),
  move_ap_ruins: count(100, 1),
  move_ap_forest: count(100, 2),
  move_ap_wasteland: count(100, 2),
  move_ap_desert: count(100, 2),
  move_ap_mountain: count(100, 4),
  move_ap_road: count(100, 1),
  bridges_allowed: z.boolean().default(false),
  // Working the world
  block_reach: z.int().min(1).max(64).default(4),
  dig_ap: count(100, 1),
  gather_ap: count(100, 1),
  gather_regrow_seconds: count(30 * 86_400, 86_400),
  place_ap: count(100, 1),
  break_ap: count(100, 1),
  break_refund_percent: count(100, 50),
  transfer_ap: count(100, 1),
  road_ap: count(100, 4),
  road_slag: count(1_000, 6),
  // The Aether: the commons rule (reach everyone) or the range rule (a route of linked masts to the Hub).
  aether_commons: z.boolean().default(true),
  aether_delay_seconds: count(86_400, 0),
  aether_messages_per_minute_max: z.int().min(1).max(1_000).default(10),
  aether_body_chars_max: z.int().min(1).max(4000).default(1000),
  relay_reach_tiles: count(64, 8),
  relay_span_max_tiles: z.int().min(1).max(256).default(30),
  relay_link_silicon_per_tile: count(1_000, 5),
  relay_mast_iron: count(1_000, 20),
  relay_mast_silicon: count(1_000, 10),
  mast_ap: count(100, 4),
  hub_relic: count(100, 1),
  hub_obsidian: count(1_000, 30),
  // Exploration and standing
  reveal_radius: z.int().min(0).max(16).default(2),
  exploration_bonus_daily_tiles: count(100_000, 25),
  exploration_bonus_standing: count(1_000, 2),
  biome_first_standing: count(100_000, 25),
  relic_standing: count(100_000, 40),
});

export type Params = z.output<typeof ParamsSchema>;

export const DEFAULT_PARAMS: Params = ParamsSchema.parse({});

/** The parameters that describe the world, served by GET /api/v1/world/params. */
const GOVERNANCE_PARAM_NAMES = new Set([
  'pom_deadline_ms',
  'voting_window_seconds',
  'genesis_period',
  'quorum_floor',
  'quorum_rate_percent',
  'genesis_quorum_rate_percent',
  'motions_per_day_max',
  'bulletin_posts_per_day_max',
]);
export const WORLD_PARAM_NAMES = Object.keys(DEFAULT_PARAMS).filter(
  (name) => !GOVERNANCE_PARAM_NAMES.has(name),
) as (keyof Params)[];
