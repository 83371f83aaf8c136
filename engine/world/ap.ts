import type { Params } from '../params.js';
import type { EpochMs } from '../time.js';
import type { WorldAgent } from './world_state.js';

/**
 * AP accrue lazily: an agent holds `ap` as of `ap_as_of_ms`, and every full
 * ap_interval_seconds since adds ap_per_interval, up to ap_cap. No timers per agent.
 */
export function apAt(agent: WorldAgent, at_ms: EpochMs, params: Params): number {
  if (agent.ap >= params.ap_cap) return agent.ap;
  const intervals = Math.floor((at_ms - agent.ap_as_of_ms) / (params.ap_interval_seconds * 1000));
  if (intervals <= 0) return agent.ap;
  return Math.min(params.ap_cap, agent.ap + intervals * params.ap_per_interval);
}

/** When the next AP arrives (null at the cap). */
export function nextApAtMs(agent: WorldAgent, at_ms: EpochMs, params: Params): EpochMs | null {
  if (apAt(agent, at_ms, params) >= params.ap_cap || params.ap_per_interval === 0) return null;
  const interval_ms = params.ap_interval_seconds * 1000;
  const intervals = Math.max(0, Math.floor((at_ms - agent.ap_as_of_ms) / interval_ms));
  return agent.ap_as_of_ms + (intervals + 1) * interval_ms;
}

/** When the agent will hold `needed` AP, or null if it never will (over the cap, no accrual). */
export function apAvailableAtMs(agent: WorldAgent, needed: number, at_ms: EpochMs, params: Params): EpochMs | null {
  const now = apAt(agent, at_ms, params);
  if (now >= needed) return at_ms;
  if (needed > params.ap_cap || params.ap_per_interval === 0) return null;
  const interval_ms = params.ap_interval_seconds * 1000;
  const elapsed = Math.max(0, Math.floor((at_ms - agent.ap_as_of_ms) / interval_ms));
  const more = Math.ceil((needed - now) / params.ap_per_interval);
  return agent.ap_as_of_ms + (elapsed + more) * interval_ms;
}

/**
 * Spends AP at engine time at_ms: first banks what accrued (keeping the part of an
 * interval already running), then subtracts. The caller has checked apAt >= amount.
 */
export function spendAp(agent: WorldAgent, amount: number, at_ms: EpochMs, params: Params): void {
  const interval_ms = params.ap_interval_seconds * 1000;
  const before = agent.ap;
  const accrued = apAt(agent, at_ms, params);
  if (accrued >= params.ap_cap || before >= params.ap_cap) agent.ap_as_of_ms = at_ms;
  else agent.ap_as_of_ms += Math.max(0, Math.floor((at_ms - agent.ap_as_of_ms) / interval_ms)) * interval_ms;
  agent.ap = accrued - amount;
}
