import type { ApplyContext, ApplyOutcome } from '../act.js';
import { refuse, type Refusal } from '../refusals.js';
import { canonicalJson, sha256Hex } from '../canonical.js';
import type { SocietyState } from '../state.js';
import { isoAt, type EpochMs } from '../time.js';
import { bedrockReason, type Change } from './changes.js';
import type { Motion, Tally } from './governance_state.js';
import { ownValue } from '../keyed.js';

export function findMotion(state: Readonly<SocietyState>, motion_id: string): Motion | Refusal {
  return (
    ownValue(state.governance.motions, motion_id) ??
    refuse('UNKNOWN_MOTION', `There is no motion ${motion_id}.`, { motion_id })
  );
}

/** aye / (aye + nay), 0 when both are 0. */
export function ayeShare(tally: Tally): number {
  return tally.aye + tally.nay === 0 ? 0 : tally.aye / (tally.aye + tally.nay);
}

/**
 * The Bedrock boundary: if any change touches Bedrock, the act is recorded on the P0
 * list and answered 403. The record names who asked and why it was refused, never
 * what was asked: the ledger carries the signed request in digest form, and
 * payload_sha256 is that same digest, so anyone can check the signer really filed
 * something with this hash, and whoever holds the text can recognise it.
 */
export function bedrockRefusal(
  ctx: ApplyContext,
  changes: Change[],
  where: 'filing' | 'apply',
  payload: unknown,
): ApplyOutcome | undefined {
  for (const change of changes) {
    const reasoning = bedrockReason(change);
    if (!reasoning) continue;
    const governance = ctx.state.governance;
    // Without a signed request (engine-level callers only) the canonical payload stands in for the body.
    const payload_sha256 = sha256Hex(ctx.signed_body ?? canonicalJson(payload));
    const record = { at_ms: ctx.at_ms, agent_id: ctx.actor, where, op: change.op, reasoning, payload_sha256 };
    governance.p0.push(record);
    governance.disclosures.push({
      kind: 'p0_refusal',
      text: `Refused at ${where}: ${change.op} (${reasoning}).`,
      at_ms: ctx.at_ms,
    });
    ctx.emit({
      event_type: 'p0_refusal',
      actor: ctx.actor,
      data: { agent_id: ctx.actor, op: change.op, payload_sha256: record.payload_sha256, reasoning, where },
    });
    const answer = refuse('BEDROCK_PROTECTED', `Refused: ${reasoning}. The refusal is on the P0 list.`, {
      op: change.op,
    });
    return { ok: true, result: {}, answer_as: answer, proof_form: 'digest' };
  }
  return undefined;
}

/** A motion as the API and the pages show it. */
export function motionView(motion: Motion, now_ms: EpochMs) {
  const { ballots: _ballots, roll: _roll, filed_at_ms, opens_at_ms, closes_at_ms, enacted_at_ms, ...rest } = motion;
  const open = motion.status === 'open' && closes_at_ms !== null;
  return {
    ...rest,
    filed_at: isoAt(filed_at_ms),
    opens_at: opens_at_ms === null ? null : isoAt(opens_at_ms),
    closes_at: closes_at_ms === null ? null : isoAt(closes_at_ms),
    enacted_at: enacted_at_ms === null ? null : isoAt(enacted_at_ms),
    voting_closes_in_seconds: open ? Math.max(0, Math.ceil((closes_at_ms! - now_ms) / 1000)) : null,
    tally: { ...motion.tally, aye_share: ayeShare(motion.tally) },
  };
}

/** The public roll: every vote and revision in order, the latest of each voter marked as the one that counts. */
export function rollView(motion: Motion) {
  const latest = new Map<string, number>();
  motion.roll.forEach((vote, index) => latest.set(vote.agent_id, index));
  return motion.roll.map((vote, index) => ({
    agent_id: vote.agent_id,
    choice: vote.choice,
    at: isoAt(vote.at_ms),
    revision: vote.revision,
    counts: latest.get(vote.agent_id) === index,
  }));
}
