import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { stateHash } from '../engine/index.js';
import { keyedCopy, keyedRecord, type Keyed } from '../engine/keyed.js';
import { challengesOf, issueChallenge, removeChallenge } from '../engine/pom/challenge_index.js';
import type { Challenge } from '../engine/pom/pom_state.js';
import * as harness from './helpers/memory_engine.js';

/** The general version the index stands in for: a scan of the whole record. */
const scanned = (challenges: Keyed<Challenge>, agent_id: string) =>
  Object.values(challenges).filter((challenge) => challenge.agent_id === agent_id);

const challenge = (n: number, agent_id: string): Challenge => ({
  challenge_id: `pom-${n}`,
  agent_id,
  intent: 'aether_send',
  kind: 'arithmetic',
  answer: String(n),
  expires_at_ms: n,
  used: false,
});

describe('the per-agent challenge index', () => {
  it('finds what a scan of the record finds, in the same order, after any issues and removals, and rebuilt on a copy', () => {
    const agents = ['ag_a', 'ag_b', 'ag_c'];
    const op = fc.oneof(
      fc.record({ issue: fc.constantFrom(...agents) }),
      fc.record({ remove: fc.constantFrom(...agents), pick: fc.nat() }),
    );
    fc.assert(
      fc.property(fc.array(op, { maxLength: 60 }), (ops) => {
        const challenges = keyedRecord<Challenge>();
        let counter = 0;
        for (const step of ops) {
          if ('issue' in step) issueChallenge(challenges, challenge(++counter, step.issue));
          else {
            const held = challengesOf(challenges, step.remove);
            if (held.length > 0) removeChallenge(challenges, held[step.pick % held.length]!);
          }
          for (const agent of agents) expect(challengesOf(challenges, agent)).toEqual(scanned(challenges, agent));
        }
        // A state restored from its image holds a new record: its index is built from it.
        const restored = keyedCopy(challenges);
        for (const agent of agents) expect(challengesOf(restored, agent)).toEqual(scanned(challenges, agent));
      }),
    );
  });

  it('refuses to issue one id twice (an engine invariant, never a member’s doing)', () => {
    const challenges = keyedRecord<Challenge>();
    issueChallenge(challenges, challenge(1, 'ag_a'));
    expect(() => issueChallenge(challenges, challenge(1, 'ag_b'))).toThrow(/issued twice/);
  });
});

describe('pom_challenge through the engine', () => {
  const ask = (under: harness.EngineUnderTest, actor: string) =>
    harness.submitAct(under.engine, 'pom_challenge', actor, { intent: 'aether_send' });

  it('counts only the asker’s own challenges toward the limit of 8, and clears its used and expired ones', async () => {
    const under = await harness.memoryEngine();
    const ada = await harness.registered(under.engine, 'ada');
    const bob = await harness.registered(under.engine, 'bob');
    for (let i = 0; i < 8; i++) expect((await ask(under, bob.agent_id)).ok).toBe(true);
    for (let i = 0; i < 8; i++) expect((await ask(under, ada.agent_id)).ok).toBe(true);
    const head = under.engine.state.ledger_head.seq;
    const ninth = await ask(under, ada.agent_id);
    expect(ninth.ok ? 'applied' : ninth.code).toBe('RATE_LIMITED');
    expect(under.engine.state.ledger_head.seq).toBe(head);

    // One answered: used, so it no longer counts, and it is gone from the state at her next request.
    const held = scanned(under.engine.state.pom.challenges, ada.agent_id)[0]!;
    const sent = await harness.submitAct(
      under.engine,
      'aether_send',
      ada.agent_id,
      { body: 'hello', scope: 'auto', route: 'global' },
      { challenge_id: held.challenge_id, puzzle_solution: held.answer },
    );
    expect(sent.ok).toBe(true);
    expect((await ask(under, ada.agent_id)).ok).toBe(true);
    expect(scanned(under.engine.state.pom.challenges, ada.agent_id).filter((c) => c.used)).toEqual([]);
    expect(scanned(under.engine.state.pom.challenges, ada.agent_id)).toHaveLength(8);

    // Past the deadline every one of hers is stale: the next request clears them all, bob's stay.
    under.advance(under.engine.state.params.pom_deadline_ms + 1);
    expect((await ask(under, ada.agent_id)).ok).toBe(true);
    expect(scanned(under.engine.state.pom.challenges, ada.agent_id)).toHaveLength(1);
    expect(scanned(under.engine.state.pom.challenges, bob.agent_id)).toHaveLength(8);
  });

  it('keeps the limit after a restart from a snapshot, and replays to the same state hash', async () => {
    const first = await harness.memoryEngine({ snapshot_every_ticks: 1 });
    const ada = await harness.registered(first.engine, 'ada');
    for (let i = 0; i < 8; i++) expect((await ask(first, ada.agent_id)).ok).toBe(true);
    const hash = stateHash(first.engine.state);
    await first.engine.drain();

    const reopened = await harness.memoryEngine({ store: first.store, founder: first.founder });
    expect(stateHash(reopened.engine.state)).toBe(hash);
    const ninth = await ask(reopened, ada.agent_id);
    expect(ninth.ok ? 'applied' : ninth.code).toBe('RATE_LIMITED');
  });
});
