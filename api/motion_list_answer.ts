import { answerRead, routeArgsParser } from './read_mount.js';
import type { ReadContext, ReadDefinition, SocietyState } from '../engine/index.js';

interface Kept {
  state: Readonly<SocietyState>;
  tick: number;
  /** The request times the body holds for: every open motion's voting_closes_in_seconds is the same throughout. */
  from_ms: number;
  until_ms: number;
  body: Buffer;
}

/**
 * The body of GET /api/v1/motions without a query (the motion_list read, its default
 * limit), kept while it stays what the view would answer: the state changes only in a
 * tick that logs something, which moves `state.tick` (the engine replaces the state
 * object when it reloads); the only thing that moves with the time of the request is
 * each open motion's `voting_closes_in_seconds`, a whole number of seconds, so the body
 * is also kept only for the times that give every open motion the same countdown.
 */
export class MotionListAnswer {
  private kept: Kept | undefined;
  private readonly args: unknown;

  constructor(
    private readonly read: ReadDefinition,
    private readonly state: () => Readonly<SocietyState>,
    private readonly contextOf: () => ReadContext,
  ) {
    // The read's own defaults, as its route parses a request without a query.
    this.args = routeArgsParser(read.args, read.path)({ params: {}, query: {} });
  }

  /** The JSON body the route answers at `now_ms` (the read context's clock). */
  body(now_ms: number): Buffer {
    const state = this.state();
    const kept = this.kept;
    if (kept && kept.state === state && kept.tick === state.tick && now_ms >= kept.from_ms && now_ms < kept.until_ms)
      return kept.body;
    const context = this.contextOf();
    const body = Buffer.from(JSON.stringify(answerRead(this.read, context, this.args)));
    this.kept = { state, tick: state.tick, ...countdownsSteady(state, context.at_ms), body };
    return body;
  }
}

/**
 * The times around `at_ms` at which every open motion shows the same
 * voting_closes_in_seconds as at `at_ms`: max(0, ceil((closes_at - now) / 1000)) is v
 * for now in [closes_at - 1000 v, closes_at - 1000 (v - 1)), and 0 from closes_at on.
 * Every open motion counts, listed or not: a narrower span only means a re-render.
 */
export function countdownsSteady(state: Readonly<SocietyState>, at_ms: number): { from_ms: number; until_ms: number } {
  let from_ms = -Infinity;
  let until_ms = Infinity;
  for (const motion of Object.values(state.governance.motions)) {
    // The motions motionView counts down (engine/governance/motion_rules.ts).
    const { status, closes_at_ms } = motion;
    if (status !== 'open' || closes_at_ms === null) continue;
    const seconds = Math.ceil((closes_at_ms - at_ms) / 1000);
    if (seconds <= 0) {
      from_ms = Math.max(from_ms, closes_at_ms);
    } else {
      from_ms = Math.max(from_ms, closes_at_ms - 1000 * seconds);
      until_ms = Math.min(until_ms, closes_at_ms - 1000 * (seconds - 1));
    }
  }
  return { from_ms, until_ms };
}
