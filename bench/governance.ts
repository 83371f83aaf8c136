import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Engine, type Submission } from '../engine/engine.js';
import { ayeShare } from '../engine/governance/motion_rules.js';
import type { BulletinItem, Motion } from '../engine/governance/governance_state.js';
import { findAct } from '../engine/catalogue.js';
import type { SocietyState } from '../engine/state.js';
import { LmdbStore } from '../engine/store/lmdb_store.js';
import { BareLedger, bareAndFloorTasks, durableRates, type DurableRates, type EntryDraft } from './bare_ledger.js';
import { opsPerSecond } from './measure.js';
import { freshPubkey, registerMembers } from './members.js';
import { pomAnswer } from './pom_answer.js';

const votes_per_call = 1024;
const choices = ['aye', 'nay', 'abstain'] as const;

/** What GET /api/v1/motions/{id}/tally computes: the kept tally and its aye share. */
function readTally(motion: Motion) {
  return { ...motion.tally, aye_share: ayeShare(motion.tally) };
}

/**
 * vote_cast through the whole engine, durable, 10,000 members revising their votes on
 * one open motion, beside the bare limit of the same entries; and the cost of reading
 * the tally on a motion with few revisions against one with hundreds of thousands.
 */
export async function benchVotes(
  member_count = 10_000,
): Promise<DurableRates & { tally_few: number; tally_many: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'tessera-bench-votes-'));
  let now = Date.parse('2026-11-21T10:00:00Z');
  const store = new LmdbStore(join(dir, 'engine'));
  const engine = await Engine.open(
    store,
    { founder_pubkey: freshPubkey(), params: { voting_window_seconds: 30 * 86_400 } },
    { clock: () => (now += 1) },
  );
  const bare = new BareLedger(dir);
  try {
    const ids = await registerMembers(engine, member_count, 'voter');
    const filed = await engine.submit({
      act: 'motion_propose',
      actor: ids[0]!,
      payload: { title: 'The bench motion', body: '', changes: [] },
      pom: await pomAnswer(engine, ids[0]!, 'motion_propose'),
    });
    if (!filed.ok) throw new Error(`filing refused: ${filed.code}`);
    const motion_id = filed.result.motion_id as string;
    const small = await engine.submit({
      act: 'motion_propose',
      actor: ids[1]!,
      payload: { title: 'A quiet motion', body: '', changes: [] },
      pom: await pomAnswer(engine, ids[1]!, 'motion_propose'),
    });
    if (!small.ok) throw new Error(`filing refused: ${small.code}`);
    const quiet_id = small.result.motion_id as string;
    for (const [author, id] of [
      [ids[0]!, motion_id],
      [ids[1]!, quiet_id],
    ] as const)
      await engine.submit({ act: 'motion_open', actor: author, payload: { motion_id: id } });
    await Promise.all(
      ids
        .slice(0, 10)
        .map((id) => engine.submit({ act: 'vote_cast', actor: id, payload: { motion_id: quiet_id, choice: 'aye' } })),
    );

    const proof = {
      method: 'POST',
      path: '/api/v1/act',
      nonce: '',
      body: '',
      signature: randomBytes(64).toString('base64url'),
    };
    let cursor = 0;
    let batch: Submission[] = [];
    const prepare = () => {
      batch = Array.from({ length: votes_per_call }, () => {
        const actor = ids[cursor % ids.length]!;
        const choice = choices[cursor++ % 3]!;
        return {
          act: 'vote_cast',
          actor,
          payload: { motion_id, choice },
          proof: {
            ...proof,
            nonce: randomBytes(18).toString('base64url'),
            body: `{"act":"vote_cast","challenge_id":null,"payload":{"choice":"${choice}","motion_id":"${motion_id}"},"puzzle_solution":null}`,
          },
        };
      });
    };
    const draft = (): EntryDraft[] => {
      prepare();
      return batch.map((vote) => {
        const { choice } = vote.payload as { choice: string };
        return {
          at_ms: now,
          event: {
            event_type: 'vote_cast',
            actor: vote.actor,
            data: { agent_id: vote.actor, choice, motion_id, revision: 3 },
          },
          proof: vote.proof,
          action: vote,
        };
      });
    };
    const rates = await opsPerSecond([
      {
        name: 'engine',
        ops_per_call: votes_per_call,
        beforeEach: prepare,
        fn: async () => {
          const outcomes = await Promise.all(batch.map((vote) => engine.submit(vote)));
          if (!outcomes[0]!.ok) throw new Error(`vote refused: ${outcomes[0]!.code}`);
        },
      },
      ...bareAndFloorTasks(bare, votes_per_call, draft),
    ]);
    const motions = engine.state.governance.motions;
    const reads = await opsPerSecond(
      [
        { name: 'many', ops_per_call: 1, fn: () => readTally(motions[motion_id]!) },
        { name: 'few', ops_per_call: 1, fn: () => readTally(motions[quiet_id]!) },
      ],
      500,
    );
    return {
      ...durableRates(rates),
      tally_few: reads.few!,
      tally_many: reads.many!,
    };
  } finally {
    await store.close();
    await bare.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * A member's bulletin allowance (checked by every post, reported on every answer to one) on a
 * board of 100,000 posts by 10,000 members, against a board of 100: the poster's own posts are
 * read, not the board's (engine/governance/bulletin_index.ts).
 */
export async function benchBulletinAllowance(): Promise<{ large: number; small: number }> {
  const allowance = findAct('bulletin_post')!.allowance!;
  const boards = [100_000, 100].map((posts) => {
    const members = Math.max(1, posts / 10);
    const bulletin: BulletinItem[] = Array.from({ length: posts }, (_, i) => ({
      bulletin_id: i + 1,
      agent_id: `ag_${i % members}`,
      at_ms: i * 1_000,
      title: '',
      body: 'a notice',
    }));
    const state = { governance: { bulletin }, params: { bulletin_posts_per_day_max: 10 } } as unknown as SocietyState;
    let cursor = 0;
    return () => allowance(state, `ag_${cursor++ % members}`, posts * 1_000);
  });
  const rates = await opsPerSecond(
    [
      { name: 'large', ops_per_call: 1, fn: boards[0]! },
      { name: 'small', ops_per_call: 1, fn: boards[1]! },
    ],
    1000,
  );
  return { large: rates.large!, small: rates.small! };
}
