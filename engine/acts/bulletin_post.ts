import { z } from 'zod';
import { multiLineText, oneLineText } from '../text.js';
import { defineMemberAct } from '../act.js';
import { refuse } from '../refusals.js';

const DAY_MS = 86_400_000;

export const BulletinSchema = z.strictObject({
  title: oneLineText(200).default(''),
  body: multiLineText(2000).min(1),
});

export const bulletinPost = defineMemberAct({
  name: 'bulletin_post',
  summary:
    'Pins a notice to the public bulletin board (body up to 2000 characters; at most bulletin_posts_per_day_max a day).',
  payload: BulletinSchema,
  pom: true,
  apply(ctx, { title, body }) {
    const governance = ctx.state.governance;
    const today = governance.bulletin.filter((item) => item.agent_id === ctx.actor && item.at_ms > ctx.at_ms - DAY_MS);
    if (today.length >= ctx.state.params.bulletin_posts_per_day_max) {
      return refuse('RATE_LIMITED', 'Too many bulletin posts in a rolling day.', {
        retry_after_seconds: Math.ceil((today[0]!.at_ms + DAY_MS - ctx.at_ms) / 1000),
      });
    }
    const bulletin_id = governance.bulletin.length + 1;
    governance.bulletin.push({ bulletin_id, agent_id: ctx.actor, at_ms: ctx.at_ms, title, body });
    ctx.emit({ event_type: 'bulletin_posted', actor: ctx.actor, data: { agent_id: ctx.actor, bulletin_id, title } });
    return { ok: true, result: { bulletin_id } };
  },
});
