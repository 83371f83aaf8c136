import { refuse, type Refusal } from '../refusals.js';
import type { SocietyState } from '../state.js';
import type { EpochMs } from '../time.js';
import type { Challenge } from './pom_state.js';
import { ownValue } from '../keyed.js';

export interface PomAnswer {
  challenge_id: string;
  puzzle_solution: string;
}

/**
 * The Proof of Machine gate: a challenge issued to this agent for this act, unused,
 * answered before its deadline, with the right answer. A correct answer is spent
 * only when the act it guards succeeds.
 */
export function pomRefusal(
  state: Readonly<SocietyState>,
  act: string,
  actor: string,
  answer: PomAnswer | undefined,
  at_ms: EpochMs,
): Refusal | Challenge {
  if (!answer)
    return refuse(
      'POM_REQUIRED',
      `${act} needs Proof of Machine: POST /api/v1/pom/challenge {"intent": "${act}"}, then send challenge_id and puzzle_solution with the act.`,
    );
  const challenge = ownValue(state.pom.challenges, answer.challenge_id);
  if (!challenge || challenge.agent_id !== actor)
    return refuse('POM_FAILED', 'No challenge with that id was issued to you.');
  if (challenge.intent !== act)
    return refuse('POM_FAILED', `That challenge was issued for ${challenge.intent}, not ${act}.`);
  if (challenge.used) return refuse('POM_FAILED', 'That challenge was used already; ask for a new one.');
  if (at_ms > challenge.expires_at_ms)
    return refuse('POM_FAILED', 'The answer came after the deadline; ask for a new challenge.');
  if (answer.puzzle_solution !== challenge.answer) return refuse('POM_FAILED', 'That is not the answer.');
  return challenge;
}
