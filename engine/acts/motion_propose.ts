import { z } from 'zod';
import { multiLineText, oneLineText, quoteMemberText } from '../text.js';
import { defineMemberAct } from '../act.js';
import { sha256Hex } from '../canonical.js';
import { rollingAllowance, rollingRefusal } from '../rolling_limit.js';
import type { SocietyState } from '../state.js';
import type { EpochMs } from '../time.js';
import { ChangeSchema, checkChanges } from '../governance/changes.js';
import { chronicle, signalsOf, type Motion } from '../governance/governance_state.js';
import { bedrockRefusal } from '../governance/motion_rules.js';
import { keyedRecord, ownValue } from '../keyed.js';

const DAY_MS = 86_400_000;

/** Motions a member may still file: motions_per_day_max in any rolling day. */
function filingAllowance(state: Readonly<SocietyState>, actor: string, at_ms: EpochMs) {
  const filed = ownValue(state.governance.filings, actor) ?? [];
  return rollingAllowance(filed, at_ms, DAY_MS, state.params.motions_per_day_max);
}

export const ProposeSchema = z.strictObject({
  title: oneLineText(200).min(1).describe("The motion's title: one line, 1 to 200 characters."),
  body: multiLineText(20_000)
    .default('')
    .describe('Why the society should pass it: up to 20000 characters (code points), lines separated by \\n.'),
  changes: z
    .array(ChangeSchema)
    .max(20)
    .default([])
    .describe(
      'What the motion does when enacted, 0 to 20 typed changes, applied together or not at all; none makes a motion that only states a view.',
    ),
});

export const motionPropose = defineMemberAct({
  name: 'motion_propose',
  summary:
    'Files a motion as a draft: a title, a body, and typed changes (set_param, amend_charter, add_prohibition, remove_prohibition, enable_module, retire_module). ' +
    'Returns its motion_id (M-<4 digits>-<4 hex>). At most motions_per_day_max (6) per member per rolling day. A change touching Bedrock is refused and recorded on the P0 list.',
  payload: ProposeSchema,
  pom: true,
  allowance: filingAllowance,
  apply(ctx, request) {
    const { state, at_ms, actor } = ctx;
    const governance = state.governance;
    // Only the filings of the last day are kept: the state holds no more than the rule reads.
    const recent = (ownValue(governance.filings, actor) ?? []).filter((filed) => filed > at_ms - DAY_MS);
    const limited = rollingRefusal(
      rollingAllowance(recent, at_ms, DAY_MS, state.params.motions_per_day_max),
      `At most ${state.params.motions_per_day_max} motions per member in a rolling day.`,
    );
    if (limited) return limited;
    const bedrock = bedrockRefusal(ctx, request.changes, 'filing', request);
    if (bedrock) return bedrock;
    const invalid = checkChanges(state, request.changes);
    if (invalid) return invalid;

    const seq = ++governance.motion_seq;
    const motion_id = `M-${String(seq).padStart(4, '0')}-${sha256Hex(`${actor}:${seq}:${request.title}`).slice(0, 4)}`;
    const motion: Motion = {
      motion_id,
      layer: 2,
      title: request.title,
      body: request.body,
      changes: request.changes,
      author: actor,
      cosponsors: [],
      status: 'draft',
      filed_at_ms: at_ms,
      quorum_snapshot: null,
      quorum_required: null,
      opens_at_ms: null,
      closes_at_ms: null,
      outcome_reason: null,
      dispatch_id: null,
      tally: { aye: 0, nay: 0, abstain: 0, participating: 0 },
      ballots: keyedRecord(),
      roll: [],
      enacted_at_ms: null,
    };
    governance.motions[motion_id] = motion;
    governance.filings[actor] = [...recent, at_ms];
    signalsOf(governance, actor).motions_filed += 1;
    chronicle(governance, at_ms, 'motion_filed', `${motion_id} filed: ${quoteMemberText(request.title)}`);
    ctx.emit({
      event_type: 'motion_filed',
      actor,
      data: { author: actor, changes: request.changes.length, motion_id, title: request.title },
    });
    return { ok: true, result: { motion_id, status: 'draft' } };
  },
});
