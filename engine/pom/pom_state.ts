import type { EpochMs } from '../time.js';
import { keyedRecord } from '../keyed.js';

export interface Challenge {
  challenge_id: string;
  agent_id: string;
  intent: string;
  kind: string;
  /** Kept in the state, never shown: the ledger and the answer to the agent carry only instruction and context. */
  answer: string;
  expires_at_ms: EpochMs;
  used: boolean;
}

export interface PomState {
  counter: number;
  challenges: Record<string, Challenge>;
}

export function createPom(): PomState {
  return { counter: 0, challenges: keyedRecord() };
}
