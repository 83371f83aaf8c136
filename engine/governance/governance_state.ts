import type { EpochMs } from '../time.js';
import { AXIOMS, DOMAIN_ARTICLES, INITIAL_PROHIBITIONS, type Article, type Prohibition } from './law.js';
import type { Change } from './changes.js';
import { keyedRecord, ownValue } from '../keyed.js';

/** The states of a motion (PROTOCOL section 6), in the order a motion moves through them. */
export const MOTION_STATUSES = ['draft', 'open', 'passed', 'enacted', 'failed'] as const;
export type MotionStatus = (typeof MOTION_STATUSES)[number];
export type Choice = 'aye' | 'nay' | 'abstain';

export interface Tally {
  aye: number;
  nay: number;
  abstain: number;
  participating: number;
}

export interface Motion {
  motion_id: string;
  layer: 2;
  title: string;
  body: string;
  changes: Change[];
  author: string;
  cosponsors: string[];
  status: MotionStatus;
  filed_at_ms: EpochMs;
  quorum_snapshot: number | null;
  quorum_required: number | null;
  opens_at_ms: EpochMs | null;
  closes_at_ms: EpochMs | null;
  outcome_reason: string | null;
  dispatch_id: number | null;
  /** Kept up to date vote by vote, so reading it never depends on how many revisions there were. */
  tally: Tally;
  /** The latest choice of each voter, and how many times it was revised. */
  ballots: Record<string, { choice: Choice; revision: number }>;
  /** Every vote and revision, in order: the public roll. */
  roll: { agent_id: string; choice: Choice; at_ms: EpochMs; revision: number }[];
  enacted_at_ms: EpochMs | null;
}

export interface Disclosure {
  kind: 'enactment_applied' | 'motion_resolved' | 'p0_refusal';
  text: string;
  at_ms: EpochMs;
}

export interface Dispatch {
  dispatch_id: number;
  at_ms: EpochMs;
  text: string;
  items: Disclosure[];
  /** The Founder's own words, when the Founder wrote any. */
  note?: string;
}

export interface CharterVersion {
  version: number;
  adopted_at_ms: EpochMs;
  by_motion: string | null;
  articles: Article[];
}

export interface Module {
  module_id: string;
  description: string;
  status: 'enabled' | 'retired';
  enabled_at_ms: EpochMs;
  retired_at_ms: EpochMs | null;
  by_motion: string | null;
}

export interface P0Record {
  at_ms: EpochMs;
  agent_id: string;
  where: 'filing' | 'apply';
  op: string;
  reasoning: string;
  /** The refused payload is never republished: this is the SHA-256 of the canonical body its actor signed, the body_sha256 of the entry's proof. */
  payload_sha256: string;
}

export interface Signals {
  exploration: number;
  biome_firsts: number;
  relics: number;
  motions_filed: number;
  motions_passed: number;
  votes_cast: number;
}

export interface ChronicleItem {
  chronicle_id: number;
  at_ms: EpochMs;
  kind: string;
  text: string;
}

export interface BulletinItem {
  bulletin_id: number;
  agent_id: string;
  at_ms: EpochMs;
  title: string;
  body: string;
}

/**
 * Governance is plain JSON (records, not maps): its snapshot image is a copy, and
 * its hash is the JCS of that copy.
 */
export interface GovernanceState {
  motion_seq: number;
  motions: Record<string, Motion>;
  /** Motions open now, for closing them on time without scanning every motion. */
  open_motions: string[];
  /** Filing times per member, for the rolling-day limit. */
  filings: Record<string, EpochMs[]>;
  charter: CharterVersion[];
  prohibitions: Prohibition[];
  modules: Record<string, Module>;
  dispatches: Dispatch[];
  disclosures: Disclosure[];
  p0: P0Record[];
  signals: Record<string, Signals>;
  chronicle: ChronicleItem[];
  bulletin: BulletinItem[];
}

export function createGovernance(at_ms: EpochMs): GovernanceState {
  return {
    motion_seq: 0,
    motions: keyedRecord(),
    open_motions: [],
    filings: keyedRecord(),
    charter: [{ version: 1, adopted_at_ms: at_ms, by_motion: null, articles: [...AXIOMS, ...DOMAIN_ARTICLES] }],
    prohibitions: [...INITIAL_PROHIBITIONS],
    modules: keyedRecord(),
    dispatches: [],
    disclosures: [],
    p0: [],
    signals: keyedRecord(),
    chronicle: [],
    bulletin: [],
  };
}

export const NO_SIGNALS: Readonly<Signals> = Object.freeze({
  exploration: 0,
  biome_firsts: 0,
  relics: 0,
  motions_filed: 0,
  motions_passed: 0,
  votes_cast: 0,
});

/** A member's signals, created on first use; only apply functions call this. */
export function signalsOf(governance: GovernanceState, agent_id: string): Signals {
  return ownValue(governance.signals, agent_id) ?? (governance.signals[agent_id] = { ...NO_SIGNALS });
}

export function chronicle(governance: GovernanceState, at_ms: EpochMs, kind: string, text: string): void {
  governance.chronicle.push({ chronicle_id: governance.chronicle.length + 1, at_ms, kind, text });
}

export function currentCharter(governance: GovernanceState): CharterVersion {
  return governance.charter[governance.charter.length - 1]!;
}
