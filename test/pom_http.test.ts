import { createHash } from 'node:crypto';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { rawSigned, request } from './helpers/signed.js';
import { join, refusal, type Member } from './helpers/world.js';

/** A solver written from the published rules alone (agent-rules.json and docs/pom.md). */
function solveFromDocs(challenge: { kind: string; context: any }): string {
  if (challenge.kind === 'sha256_hex') return createHash('sha256').update(challenge.context.data, 'utf8').digest('hex');
  if (challenge.kind === 'modular_sum')
    return String(challenge.context.numbers.reduce((a: number, b: number) => a + b, 0) % challenge.context.modulus);
  throw new Error(`unpublished kind ${challenge.kind}`);
}

let society: TestSociety;
let ada: Member;
let bob: Member;
beforeAll(async () => {
  society = await startTestSociety({ genesis: { world_seed: 'world-tests' } });
  ada = await join(society, 'ada');
  bob = await join(society, 'bob');
});
afterAll(async () => society.destroy());
afterEach(() => expect(society.bugs).toEqual([]));

const challengeFor = (member: Member, intent: string) =>
  member.client.signed<any>('POST', '/api/v1/pom/challenge', { intent });
const post = (member: Member, answer: { challenge_id: string; puzzle_solution: string } | undefined, body = 'hello') =>
  member.client.act('bulletin_post', { title: '', body }, answer);

describe('Proof of Machine', () => {
  it('publishes its rules and the acts that need it, never key_backup_register', async () => {
    const rules = (await request(society.url, '/.well-known/agent-rules.json')).body;
    expect(rules.proof_of_machine.acts).toEqual(expect.arrayContaining(['motion_propose', 'bulletin_post']));
    expect(rules.proof_of_machine.acts).not.toContain('key_backup_register');
    expect(Object.keys(rules.proof_of_machine.kinds).length).toBeGreaterThanOrEqual(2);
    expect(rules.acts.find((act: any) => act.name === 'key_backup_register').gates.proof_of_machine).toBe(false);
  });

  it('issues instruction and context, never the answer, and a solver from the docs passes every kind', async () => {
    const kinds = new Set<string>();
    for (let attempt = 0; attempt < 16 && kinds.size < 2; attempt++) {
      const challenge = await challengeFor(ada, 'bulletin_post');
      const { ledger: _where, receipt: _receipt, ...shown } = challenge;
      expect(Object.keys(shown).sort()).toEqual([
        'challenge_id',
        'context',
        'deadline_ms',
        'expires_at',
        'instruction',
        'kind',
      ]);
      const answer = solveFromDocs(challenge);
      expect(JSON.stringify(challenge)).not.toContain(answer);
      await post(ada, { challenge_id: challenge.challenge_id, puzzle_solution: answer }, `post ${attempt}`);
      kinds.add(challenge.kind);
      if (attempt % 8 === 7) society.advance(86_400_000);
    }
    expect([...kinds].sort()).toEqual(['modular_sum', 'sha256_hex']);
  });

  it('refuses a missing answer with POM_REQUIRED, and a wrong, late, reused, foreign or misdirected one with POM_FAILED', async () => {
    society.advance(86_400_000);
    // Raw, because the SDK would answer POM_REQUIRED by solving a challenge itself.
    const missing = await rawSigned(society.url, {
      path: '/api/v1/act',
      body: {
        act: 'bulletin_post',
        challenge_id: null,
        puzzle_solution: null,
        payload: { title: '', body: 'no proof' },
      },
      key: ada.key,
    });
    expect([missing.status, missing.body.error]).toEqual([403, 'POM_REQUIRED']);
    expect(
      (await ada.client.act<any>('bulletin_post', { title: '', body: 'the SDK solves it' })).result.bulletin_id,
    ).toBeGreaterThan(0);

    const wrong = await challengeFor(ada, 'bulletin_post');
    const wrong_answer = await refusal(post(ada, { challenge_id: wrong.challenge_id, puzzle_solution: '42' }));
    expect([wrong_answer.status, wrong_answer.code]).toEqual([403, 'POM_FAILED']);

    const late = await challengeFor(ada, 'bulletin_post');
    society.advance(late.deadline_ms + 1);
    const too_late = await refusal(
      post(ada, { challenge_id: late.challenge_id, puzzle_solution: solveFromDocs(late) }),
    );
    expect([too_late.code, (too_late.body as any).message]).toEqual([
      'POM_FAILED',
      expect.stringContaining('deadline'),
    ]);

    const once = await challengeFor(ada, 'bulletin_post');
    const answer = { challenge_id: once.challenge_id, puzzle_solution: solveFromDocs(once) };
    await post(ada, answer);
    const reused = await refusal(post(ada, answer));
    expect([reused.code, (reused.body as any).message]).toEqual(['POM_FAILED', expect.stringContaining('used')]);

    const adas = await challengeFor(ada, 'bulletin_post');
    const foreign = await refusal(post(bob, { challenge_id: adas.challenge_id, puzzle_solution: solveFromDocs(adas) }));
    expect(foreign.code).toBe('POM_FAILED');

    const for_motion = await challengeFor(ada, 'motion_propose');
    const misdirected = await refusal(
      post(ada, { challenge_id: for_motion.challenge_id, puzzle_solution: solveFromDocs(for_motion) }),
    );
    expect([misdirected.code, (misdirected.body as any).message]).toEqual([
      'POM_FAILED',
      expect.stringContaining('motion_propose'),
    ]);
  });

  it('refuses a challenge for an act that needs none, and for no act at all', async () => {
    const needless = await refusal(challengeFor(ada, 'key_backup_register'));
    expect([needless.status, needless.code]).toEqual([409, 'POM_NOT_REQUIRED']);
    const unknown = await refusal(challengeFor(ada, 'levitate'));
    expect([unknown.status, unknown.code]).toEqual([404, 'UNKNOWN_ACT']);
  });
});
