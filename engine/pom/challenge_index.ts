import { DerivedIndex } from '../derived_index.js';
import { invariant } from '../invariant.js';
import { ownValue, type Keyed } from '../keyed.js';
import type { Challenge } from './pom_state.js';

/**
 * Each agent's challenges, found without reading everyone's. The challenges record
 * holds every agent's outstanding (and used, until their owner asks again) challenges,
 * so a scan of it per request made each request cost the whole society's: 6.6 ms with
 * 10,000 members holding two each (bench/PROFILES.md), and every Aether message asks
 * for one.
 *
 * The index is derived (engine/derived_index.ts) and kept current by the only two changes
 * the record sees, here: a challenge issued and a stale one removed. Marking one used
 * changes no membership. Each read checks what it finds against the record.
 */
const byAgent = new DerivedIndex((challenges: Keyed<Challenge>) => {
  const index = new Map<string, Set<string>>();
  for (const challenge of Object.values(challenges)) idsOf(index, challenge.agent_id).add(challenge.challenge_id);
  return index;
});

function idsOf(index: Map<string, Set<string>>, agent_id: string): Set<string> {
  let ids = index.get(agent_id);
  if (!ids) index.set(agent_id, (ids = new Set()));
  return ids;
}

/** The agent's challenges, in the order they were issued. */
export function challengesOf(challenges: Keyed<Challenge>, agent_id: string): Challenge[] {
  const ids = byAgent.of(challenges).get(agent_id);
  if (!ids) return [];
  return [...ids].map((challenge_id) => {
    const challenge = ownValue(challenges, challenge_id);
    invariant(
      challenge !== undefined && challenge.agent_id === agent_id,
      `the challenge index names ${challenge_id} for ${agent_id}, which the record does not hold`,
    );
    return challenge;
  });
}

export function issueChallenge(challenges: Keyed<Challenge>, challenge: Challenge): void {
  invariant(ownValue(challenges, challenge.challenge_id) === undefined, `${challenge.challenge_id} issued twice`);
  challenges[challenge.challenge_id] = challenge;
  idsOf(byAgent.of(challenges), challenge.agent_id).add(challenge.challenge_id);
}

export function removeChallenge(challenges: Keyed<Challenge>, challenge: Challenge): void {
  const index = byAgent.of(challenges);
  delete challenges[challenge.challenge_id];
  const ids = index.get(challenge.agent_id);
  ids?.delete(challenge.challenge_id);
  if (ids?.size === 0) index.delete(challenge.agent_id);
}
