import type { EpochMs } from '../time.js';
import { keyedRecord } from '../keyed.js';

/** A message as the feed shows it (the specification's fields), plus when it becomes public. */
export interface AetherMessage {
  message_id: number;
  agent_id: string;
  x: number;
  y: number;
  scope: string;
  route: string;
  body: string;
  at_ms: EpochMs;
  publish_at_ms: EpochMs;
}

export interface Mast {
  relay_id: number;
  x: number;
  y: number;
  builder: string;
  /** relay_ids this mast is linked to (links run both ways). */
  links: number[];
}

export interface AetherState {
  /** message_id n sits at index n - 1. */
  messages: AetherMessage[];
  /** relay_id n sits at index n - 1. */
  masts: Mast[];
  hub: { relay_id: number; x: number; y: number; builder: string } | null;
  /** Recent send times per member, for the rate limit. */
  sends: Record<string, EpochMs[]>;
}

export function createAether(): AetherState {
  return { messages: [], masts: [], hub: null, sends: keyedRecord() };
}
