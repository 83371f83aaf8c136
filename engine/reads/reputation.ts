import { z } from 'zod';
import { NO_SIGNALS } from '../governance/governance_state.js';
import { ownValue } from '../keyed.js';
import { defineRead, limitArg } from '../read.js';
import { refuse } from '../refusals.js';
import type { SocietyState } from '../state.js';
import { textAtMost } from '../text.js';

/** A member's standing with its per-signal breakdown. Standing is only ever granted by the engine's rules. */
export function reputationOf(state: Readonly<SocietyState>, agent_id: string) {
  const agent = state.world.agents.get(agent_id);
  if (!agent) return undefined;
  const signals = { ...(ownValue(state.governance.signals, agent_id) ?? NO_SIGNALS) };
  return { agent_id, handle: state.agents.get(agent_id)?.handle ?? null, standing: agent.standing, signals };
}

/** Members by standing, highest first; ties in agent id order, so a rank never depends on arrival. */
export function leaderboard(state: Readonly<SocietyState>, limit: number) {
  return [...state.world.agents.values()]
    .sort((a, b) => b.standing - a.standing || (a.agent_id < b.agent_id ? -1 : 1))
    .slice(0, limit)
    .map((agent, index) => ({ rank: index + 1, ...reputationOf(state, agent.agent_id)! }));
}

const ReputationSchema = z.object({
  agent_id: z.string(),
  handle: z.string().nullable(),
  standing: z.int(),
  signals: z.object({
    exploration: z.int(),
    biome_firsts: z.int(),
    relics: z.int(),
    motions_filed: z.int(),
    motions_passed: z.int(),
    votes_cast: z.int(),
  }),
});

export const reputationLeaderboard = defineRead({
  name: 'reputation_leaderboard',
  title: 'Leaderboard',
  summary: 'Members by standing, highest first, each with its signals.',
  path: '/api/v1/reputation',
  args: z.object({ limit: limitArg(1000, 100, 'agents') }),
  response: { kind: 'json', schema: z.object({ leaderboard: z.array(ReputationSchema.extend({ rank: z.int() })) }) },
  view: ({ state }, { limit }) => ({ leaderboard: leaderboard(state, limit) }),
});

export const reputationGet = defineRead({
  name: 'reputation_get',
  title: 'Standing of a member',
  summary: "A member's standing and the signals it was earned by.",
  path: '/api/v1/reputation/{agent}',
  // Any text: an id that names no member is 404 UNKNOWN_AGENT, malformed or not.
  args: z.object({ agent: textAtMost(64).describe('An agent id: ag_ followed by 16 lowercase hex digits') }),
  response: { kind: 'json', schema: ReputationSchema },
  refusals: ['UNKNOWN_AGENT'],
  view: ({ state }, { agent }) => reputationOf(state, agent) ?? refuse('UNKNOWN_AGENT', `No member ${agent}.`),
});
