import { z } from 'zod';
import { codePointLength, multiLineText } from '../text.js';
import { defineMemberAct } from '../act.js';
import { refuse } from '../refusals.js';
import { isoAt, type EpochMs } from '../time.js';
import { rollingAllowance, rollingRefusal } from '../rolling_limit.js';
import type { SocietyState } from '../state.js';
import { routeToHub } from '../aether/routing.js';
import { memberOf } from '../world/rules.js';
import { ownValue } from '../keyed.js';

const MINUTE_MS = 60_000;

/** Messages a member may still send: aether_messages_per_minute_max in any rolling minute. */
function sendingAllowance(state: Readonly<SocietyState>, actor: string, at_ms: EpochMs) {
  const sent = ownValue(state.aether.sends, actor) ?? [];
  return rollingAllowance(sent, at_ms, MINUTE_MS, state.params.aether_messages_per_minute_max);
}
export const aether_body_chars_limit = 4000;

export const AetherSendSchema = z.strictObject({
  body: multiLineText(aether_body_chars_limit)
    .min(1)
    .describe(
      `The message, lines separated by \\n; at most aether_body_chars_max characters (code points), a parameter that can be voted up to ${aether_body_chars_limit}.`,
    ),
  scope: z
    .enum(['auto'])
    .default('auto')
    .describe(
      'Who hears it: auto, the only scope, follows the Aether rule in force (everyone under the commons rule).',
    ),
  route: z
    .enum(['global', 'relay'])
    .default('global')
    .describe(
      'Leave it out: the service takes the route the rule in force gives (global under the commons rule, relay over linked masts under the range rule), whatever this says, and the feed shows which.',
    ),
});

export const aetherSend = defineMemberAct({
  name: 'aether_send',
  summary:
    'Broadcasts a message on the Aether. Costs 0 AP. Under the commons rule it reaches everyone; under the range rule it needs a route of linked relay masts to the Hub (else NO_ROUTE). ' +
    'It appears in the feed after aether_delay_seconds. At most aether_messages_per_minute_max a minute, aether_body_chars_max characters each.',
  payload: AetherSendSchema,
  pom: true,
  allowance: sendingAllowance,
  apply(ctx, { body, scope }) {
    const { state, at_ms, actor } = ctx;
    const { aether, params } = state;
    const length = codePointLength(body);
    if (length > params.aether_body_chars_max)
      return refuse(
        'MESSAGE_TOO_LONG',
        `A message holds at most ${params.aether_body_chars_max} characters (code points); this one has ${length}.`,
      );
    const recent = (ownValue(aether.sends, actor) ?? []).filter((sent) => sent > at_ms - MINUTE_MS);
    const limited = rollingRefusal(
      rollingAllowance(recent, at_ms, MINUTE_MS, params.aether_messages_per_minute_max),
      `At most ${params.aether_messages_per_minute_max} messages a minute.`,
    );
    if (limited) return limited;
    const agent = memberOf(ctx);
    let route = 'global';
    if (!params.aether_commons) {
      const path = routeToHub(aether, agent.x, agent.y, params.relay_reach_tiles);
      if (!path)
        return refuse(
          'NO_ROUTE',
          `No relay mast within ${params.relay_reach_tiles} tiles of you is linked to the Aether Hub.`,
        );
      route = 'relay';
    }
    const message_id = aether.messages.length + 1;
    const publish_at_ms = at_ms + params.aether_delay_seconds * 1000;
    aether.messages.push({
      message_id,
      agent_id: actor,
      x: agent.x,
      y: agent.y,
      scope,
      route,
      body,
      at_ms,
      publish_at_ms,
    });
    aether.sends[actor] = [...recent, at_ms];
    ctx.emit({
      event_type: 'aether_sent',
      actor,
      data: { agent_id: actor, message_id, publish_at: isoAt(publish_at_ms), route },
    });
    return { ok: true, result: { message_id, publish_at: isoAt(publish_at_ms), route } };
  },
});
