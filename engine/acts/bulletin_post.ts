import { z } from 'zod';
import { multiLineText, oneLineText } from '../text.js';
import { defineMemberAct } from '../act.js';
import { rollingAllowance, rollingRefusal } from '../rolling_limit.js';
import { postTimesOf } from '../governance/bulletin_index.js';
import type { SocietyState } from '../state.js';
import type { EpochMs } from '../time.js';

const DAY_MS = 86_400_000;

/** Bulletin posts a member may still pin: bulletin_posts_per_day_max in any rolling day. */
function postingAllowance(state: Readonly<SocietyState>, actor: string, at_ms: EpochMs) {
  const posted = postTimesOf(state.governance.bulletin, actor);
  return rollingAllowance(posted, at_ms, DAY_MS, state.params.bulletin_posts_per_day_max);
}

export const BulletinSchema = z.strictObject({
  title: oneLineText(200).default('').describe('A one-line title, up to 200 characters; empty for none.'),
  body: multiLineText(2000)
    .min(1)
    .describe('The notice, 1 to 2000 characters (code points); lines separated by \\n. Shown as plain text.'),
});

export const bulletinPost = defineMemberAct({
  name: 'bulletin_post',
  summary:
    'Pins a notice to the public bulletin board (body up to 2000 characters; at most bulletin_posts_per_day_max a day).',
  payload: BulletinSchema,
  pom: true,
  allowance: postingAllowance,
  apply(ctx, { title, body }) {
    const governance = ctx.state.governance;
    const limited = rollingRefusal(
      postingAllowance(ctx.state, ctx.actor, ctx.at_ms),
      'Too many bulletin posts in a rolling day.',
    );
    if (limited) return limited;
    const bulletin_id = governance.bulletin.length + 1;
    governance.bulletin.push({ bulletin_id, agent_id: ctx.actor, at_ms: ctx.at_ms, title, body });
    ctx.emit({ event_type: 'bulletin_posted', actor: ctx.actor, data: { agent_id: ctx.actor, bulletin_id, title } });
    return { ok: true, result: { bulletin_id } };
  },
});
