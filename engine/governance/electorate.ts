import { invariant } from '../invariant.js';
import type { SocietyState } from '../state.js';
import type { EpochMs } from '../time.js';
import { isActiveMember } from './membership.js';
import { lowerBound } from '../sorted_search.js';

/*
 * Who counts toward a motion's quorum (docs/governance.md, "The electorate").
 *
 * The electorate of a motion is the active members whose first member act was applied
 * before the motion was opened. A member act is an applied write act that needs an
 * active membership (moving, digging, filing, voting, posting, ...) and that was not
 * answered as a refusal. Registration, backup keys, key rotation and Proof of Machine
 * challenges do not count: a script performs them in the same breath as registering,
 * so they prove no more than the registration itself. Reads change nothing and are
 * not logged, so they cannot count either.
 *
 * Counting at the opening, not the filing: a draft may wait as long as its author
 * likes, and with the filing as the cut-off a draft filed when the society was small
 * could be opened a year later against that small society's quorum. The author picks
 * the moment and may open in the breath after filing, so nobody gets to wake dormant
 * agents in between; and since a member act costs nothing, an attacker would have
 * woken them long before anyway.
 */

/** Records an agent's first member act; applyAction calls this for every applied member act. */
export function noteMemberAct(state: SocietyState, agent_id: string, at_ms: EpochMs): void {
  const agent = state.agents.get(agent_id);
  if (!agent || agent.first_acted_at_ms !== undefined) return;
  const acts = state.first_member_acts_ms;
  invariant(acts.length === 0 || acts[acts.length - 1]! <= at_ms, 'a first member act earlier than the one before it');
  agent.first_acted_at_ms = at_ms;
  acts.push(at_ms);
}

/**
 * The electorate of a motion opened at opened_at_ms. With payments off no
 * member ever stops being active, so it is the number of first acts before the opening:
 * a binary search, whatever the size of the society. With payments on, membership
 * lapses, so each member who acted in time is checked (as often as motions open).
 */
export function electorateCount(state: Readonly<SocietyState>, opened_at_ms: EpochMs): number {
  if (state.payments.mode === 'off') return lowerBound(state.first_member_acts_ms, opened_at_ms);
  let count = 0;
  for (const agent of state.agents.values()) {
    if (
      agent.first_acted_at_ms !== undefined &&
      agent.first_acted_at_ms < opened_at_ms &&
      isActiveMember(state, agent.agent_id)
    )
      count++;
  }
  return count;
}
