import { z } from 'zod';
import { oneLineText } from '../text.js';
import { defineAct } from '../act.js';
import { findAct } from '../catalogue.js';
import { refuse } from '../refusals.js';
import { isoAt } from '../time.js';
import { makeChallenge } from '../pom/challenges.js';
import { challengesOf, issueChallenge, removeChallenge } from '../pom/challenge_index.js';
import { ACT_ROUTES } from '../events/signed_routes.js';

const outstanding_per_agent_max = 8;

export const ChallengeRequestSchema = z.strictObject({
  intent: oneLineText(64)
    .min(1)
    .describe('The name of the act the challenge is for (as bulletin_post); the answer counts for that act only.'),
});

/**
 * Issues a Proof of Machine challenge bound to the signer and the act it is for. The
 * contents come from the engine's seeded generator (the world seed and a counter),
 * so a replay issues the same challenges; the ledger records the issue, never the answer.
 */
export const pomChallenge = defineAct({
  name: 'pom_challenge',
  summary:
    'Asks for a Proof of Machine challenge for one act (intent). Answer it within deadline_ms by sending challenge_id and puzzle_solution with that act.',
  payload: ChallengeRequestSchema,
  signer: 'primary',
  via_act: false,
  rest: { method: 'POST', path: ACT_ROUTES.pom_challenge },
  gates: { membership: false, pom: false },
  apply(ctx, { intent }) {
    const { state, at_ms, actor } = ctx;
    const act = findAct(intent);
    if (!act) return refuse('UNKNOWN_ACT', `There is no act named '${intent}'.`);
    if (!act.gates.pom) return refuse('POM_NOT_REQUIRED', `${intent} needs no Proof of Machine.`);
    const challenges = state.pom.challenges;
    const mine = challengesOf(challenges, actor);
    const live = mine.filter((c) => !c.used && c.expires_at_ms >= at_ms);
    if (live.length >= outstanding_per_agent_max)
      return refuse(
        'RATE_LIMITED',
        `At most ${outstanding_per_agent_max} challenges outstanding; answer or let some expire.`,
        { retry_after_seconds: Math.ceil(state.params.pom_deadline_ms / 1000) },
      );
    for (const stale of mine) if (stale.used || stale.expires_at_ms < at_ms) removeChallenge(challenges, stale);

    const counter = ++state.pom.counter;
    const content = makeChallenge(state.world_seed, counter);
    const challenge_id = `pom-${counter}`;
    const expires_at_ms = at_ms + state.params.pom_deadline_ms;
    issueChallenge(challenges, {
      challenge_id,
      agent_id: actor,
      intent,
      kind: content.kind,
      answer: content.answer,
      expires_at_ms,
      used: false,
    });
    ctx.emit({
      event_type: 'pom_challenge_issued',
      actor,
      data: { agent_id: actor, challenge_id, intent, kind: content.kind },
    });
    return {
      ok: true,
      result: {
        challenge_id,
        kind: content.kind,
        instruction: content.instruction,
        context: content.context,
        deadline_ms: state.params.pom_deadline_ms,
        expires_at: isoAt(expires_at_ms),
      },
    };
  },
});
