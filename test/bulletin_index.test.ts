import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findAct } from '../engine/index.js';
import { postTimesOf } from '../engine/governance/bulletin_index.js';
import type { BulletinItem } from '../engine/governance/governance_state.js';
import * as harness from './helpers/memory_engine.js';

/** The general version the index stands in for: the whole board, filtered. */
const scanned = (bulletin: BulletinItem[], agent_id: string) =>
  bulletin.filter((item) => item.agent_id === agent_id).map((item) => item.at_ms);

describe("each member's bulletin post times", () => {
  it('are what a scan of the whole board finds, read between any appends, and on a copy of the board', () => {
    const agents = ['ag_a', 'ag_b', 'ag_c'];
    const step = fc.oneof(
      fc.record({ post: fc.constantFrom(...agents), after_ms: fc.nat(100_000) }),
      fc.record({ read: fc.constantFrom(...agents) }),
    );
    fc.assert(
      fc.property(fc.array(step, { maxLength: 60 }), (steps) => {
        const bulletin: BulletinItem[] = [];
        let at_ms = 0;
        for (const s of steps) {
          if ('post' in s) {
            at_ms += s.after_ms;
            bulletin.push({ bulletin_id: bulletin.length + 1, agent_id: s.post, at_ms, title: '', body: 'x' });
          } else expect(postTimesOf(bulletin, s.read)).toEqual(scanned(bulletin, s.read));
        }
        for (const agent of agents) {
          expect(postTimesOf(bulletin, agent)).toEqual(scanned(bulletin, agent));
          expect(postTimesOf([...bulletin], agent)).toEqual(scanned(bulletin, agent));
        }
      }),
    );
  });
});

describe('bulletin_post under its daily allowance', () => {
  const post = (under: harness.EngineUnderTest, actor: string) =>
    harness.submitWithPom(under.engine, 'bulletin_post', actor, { title: 'notice', body: 'hello' });

  it('refuses the post past bulletin_posts_per_day_max with RATE_LIMITED, counting only the poster’s, and allows it a day later', async () => {
    const under = await harness.memoryEngine({ genesis: { params: { bulletin_posts_per_day_max: 3 } } });
    const ada = await harness.registered(under.engine, 'ada');
    const bob = await harness.registered(under.engine, 'bob');
    for (let i = 0; i < 5; i++) expect((await post(under, bob.agent_id)).ok).toBe(i < 3);
    for (let i = 0; i < 3; i++) {
      under.advance(60_000);
      expect((await post(under, ada.agent_id)).ok).toBe(true);
    }
    const allowance = findAct('bulletin_post')!.allowance!;
    expect(allowance(under.engine.state, ada.agent_id, under.now())).toMatchObject({ limit: 3, remaining: 0 });

    const head = under.engine.state.ledger_head.seq;
    const refused = await post(under, ada.agent_id);
    expect(refused.ok ? 'applied' : refused.code).toBe('RATE_LIMITED');
    // Her first post leaves the rolling day 2 minutes before the other two: that is the wait.
    expect(refused.ok ? undefined : refused.details).toMatchObject({ retry_after_seconds: 86_400 - 120 });
    expect(under.engine.state.ledger_head.seq).toBe(head + 1); // the challenge's entry, not the post's

    under.advance(86_400_000 - 120_000);
    expect((await post(under, ada.agent_id)).ok).toBe(true);
    expect(allowance(under.engine.state, ada.agent_id, under.now())).toMatchObject({ remaining: 0 });
  });
});
