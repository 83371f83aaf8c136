import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TesseraClient } from '../client/sdk.js';
import { recoverState } from '../engine/recover.js';
import { stateHash } from '../engine/state.js';
import { founderClient, startTestSociety, type TestSociety } from './helpers/society.js';
import { rawSigned, request } from './helpers/signed.js';
import { join, refusal, type Member } from './helpers/world.js';

let society: TestSociety;
let url: string;
let founder: TesseraClient;
let members: Member[];
const WINDOW_MS = 60_000;

beforeAll(async () => {
  society = await startTestSociety({ genesis: { world_seed: 'world-tests', params: { voting_window_seconds: 60 } } });
  url = society.url;
  founder = await founderClient(society);
  members = [];
  for (const handle of ['ada', 'bob', 'cyd', 'dio']) members.push(await join(society, handle));
  // Each says hello: only members who have acted before a motion is filed count toward its quorum.
  for (const member of members) await member.client.act('bulletin_post', { title: 'Hello', body: 'Glad to be here.' });
  society.advance(1000);
});
afterAll(async () => society.destroy());
afterEach(() => expect(society.bugs).toEqual([]));

const ada = () => members[0]!;
const bo = () => members[1]!;
const cy = () => members[2]!;
const di = () => members[3]!;

async function propose(member: Member, title: string, changes: unknown[] = []): Promise<string> {
  const filed = await member.client.act<{ motion_id: string }>('motion_propose', {
    title,
    body: `Why: ${title}`,
    changes,
  });
  return filed.result.motion_id;
}

async function openMotion(member: Member, motion_id: string) {
  return (await member.client.act<any>('motion_open', { motion_id })).result;
}

const vote = (member: Member, motion_id: string, choice: string) =>
  member.client.act<any>('vote_cast', { motion_id, choice });
const motion = async (motion_id: string) => (await request(url, `/api/v1/motions/${motion_id}`)).body;

/** Moves engine time past the voting window and lets the engine close what is due. */
async function closeWindow(): Promise<void> {
  society.advance(WINDOW_MS + 1000);
  await society.engine.pulse();
}

describe('the life of a motion', () => {
  it('files a draft with an id of the form M-<4 digits>-<4 hex>, opens it with a frozen quorum, and fails it for lack of quorum', async () => {
    const motion_id = await propose(ada(), 'Plant more forests');
    expect(motion_id).toMatch(/^M-\d{4}-[0-9a-f]{4}$/);
    expect((await motion(motion_id)).status).toBe('draft');
    const draft_vote = await refusal(vote(bo(), motion_id, 'aye'));
    expect([draft_vote.status, draft_vote.code, (draft_vote.body as any).message]).toEqual([
      409,
      'MOTION_CLOSED',
      'draft, not open for voting',
    ]);
    const opened = await openMotion(ada(), motion_id);
    expect(opened).toMatchObject({ quorum_snapshot: 4, quorum_required: 3 });
    await vote(ada(), motion_id, 'aye');
    await vote(bo(), motion_id, 'aye');
    expect((await motion(motion_id)).voting_closes_in_seconds).toBe(60);
    await closeWindow();
    const closed = await motion(motion_id);
    expect(closed).toMatchObject({
      status: 'failed',
      outcome_reason: 'QUORUM_NOT_MET',
      quorum_snapshot: 4,
      quorum_required: 3,
      voting_closes_in_seconds: null,
      tally: { aye: 2, nay: 0, participating: 2, aye_share: 1 },
    });
    const late = await refusal(vote(cy(), motion_id, 'aye'));
    expect([late.code, (late.body as any).message]).toEqual(['MOTION_CLOSED', expect.stringContaining('failed')]);
  });

  it('rejects a motion with quorum but no majority', async () => {
    const motion_id = await propose(bo(), 'Halve every cost');
    await openMotion(bo(), motion_id);
    await vote(ada(), motion_id, 'aye');
    await vote(bo(), motion_id, 'nay');
    await vote(cy(), motion_id, 'nay');
    await vote(di(), motion_id, 'abstain');
    await closeWindow();
    expect(await motion(motion_id)).toMatchObject({
      status: 'failed',
      outcome_reason: 'REJECTED',
      tally: { aye: 1, nay: 2, abstain: 1, participating: 4 },
    });
  });

  it("passes a motion by vote; the Founder applies it, the world's physics visibly change, and applying twice changes nothing", async () => {
    const before = (await request(url, '/api/v1/world/params')).body;
    expect(before.transfer_ap).toBe(1);
    const motion_id = await propose(cy(), 'Cheaper giving', [{ op: 'set_param', name: 'transfer_ap', value: 0 }]);
    await openMotion(cy(), motion_id);
    for (const member of [ada(), bo(), cy()]) await vote(member, motion_id, 'aye');
    await vote(di(), motion_id, 'nay');
    await closeWindow();
    expect(await motion(motion_id)).toMatchObject({ status: 'passed' });
    const queue = (await request(url, '/enactment/queue')).body.queue;
    expect(queue).toContainEqual({
      motion_id,
      status: 'passed',
      title: 'Cheaper giving',
      changes: [{ op: 'set_param', name: 'transfer_ap', value: 0 }],
    });
    const applied = await founder.signed<any>('POST', '/enactment/apply', { motion_id });
    expect(applied).toMatchObject({ motion_id, status: 'enacted', changes_applied: 1 });
    expect((await request(url, '/api/v1/world/params')).body.transfer_ap).toBe(0);
    expect(await motion(motion_id)).toMatchObject({ status: 'enacted' });
    const head = society.store.ledgerHead().seq;
    const again = await refusal(founder.signed('POST', '/enactment/apply', { motion_id }));
    expect([again.status, again.code]).toEqual([409, 'ALREADY_ENACTED']);
    expect(society.store.ledgerHead().seq).toBe(head);
  });

  it('lets the Founder resolve an open motion before closes_at, recorded in the next Dispatch', async () => {
    const motion_id = await propose(di(), 'Adopt the library module', [
      { op: 'enable_module', module_id: 'library', description: 'a shared archive' },
    ]);
    await openMotion(di(), motion_id);
    const resolved = await founder.signed<any>('POST', '/enactment/resolve', {
      motion_id,
      reason: 'urgent, and uncontroversial',
    });
    const dispatches_before = (await request(url, '/api/v1/dispatches')).body.dispatches.length;
    expect(resolved).toMatchObject({
      status: 'enacted',
      outcome_reason: 'resolved by founder action: urgent, and uncontroversial',
      dispatch_id: dispatches_before + 1,
    });
    const view = await motion(motion_id);
    expect(view).toMatchObject({
      status: 'enacted',
      dispatch_id: dispatches_before + 1,
      voting_closes_in_seconds: null,
    });
    const entries = (await request(url, `/api/v1/ledger?from=${resolved.ledger.first_seq}&limit=1`)).body.entries;
    expect(entries[0]).toMatchObject({
      event_type: 'motion_resolved_by_founder',
      data: { motion: motion_id, dispatch_id: dispatches_before + 1 },
    });

    const dispatch = await founder.signed<any>('POST', '/enactment/dispatch', {});
    expect(dispatch.dispatch_id).toBe(dispatches_before + 1);
    expect(dispatch.text).toContain(`Resolved ${motion_id}`);
    expect(dispatch.text).toContain('Applied');
    // The queue was drained in the same commit as the publication: the next Dispatch has nothing.
    expect(society.engine.state.governance.disclosures).toEqual([]);
    const next = await founder.signed<any>('POST', '/enactment/dispatch', {});
    expect(next.text).toBe('Nothing new.');
    expect((await request(url, '/api/v1/dispatches')).body.dispatches[0]).toMatchObject({
      dispatch_id: next.dispatch_id,
      text: 'Nothing new.',
    });
  });

  it('keeps every vote revision on the ledger and counts the latest', async () => {
    const motion_id = await propose(ada(), 'Revisable');
    await openMotion(ada(), motion_id);
    const first = await vote(bo(), motion_id, 'aye');
    await vote(bo(), motion_id, 'nay');
    await vote(bo(), motion_id, 'aye');
    const roll = (await request(url, `/api/v1/motions/${motion_id}/votes`)).body.roll;
    expect(roll.map((v: any) => [v.choice, v.revision, v.counts])).toEqual([
      ['aye', 0, false],
      ['nay', 1, false],
      ['aye', 2, true],
    ]);
    expect((await request(url, `/api/v1/motions/${motion_id}/tally`)).body).toMatchObject({
      aye: 1,
      nay: 0,
      participating: 1,
      aye_share: 1,
    });
    const entries = (await request(url, `/api/v1/ledger?from=${first.ledger.first_seq}&limit=3`)).body.entries;
    expect(entries.map((e: any) => [e.event_type, e.data.choice, e.data.revision])).toEqual([
      ['vote_cast', 'aye', 0],
      ['vote_cast', 'nay', 1],
      ['vote_cast', 'aye', 2],
    ]);
    await closeWindow();
  });
});

describe('the Bedrock boundary', () => {
  it('refuses a Bedrock change at filing with 403, and lists it on P0 without republishing the payload', async () => {
    const secret = 'Axiom four shall read: nothing is recorded';
    const error = await refusal(
      bo().client.act('motion_propose', {
        title: 'Quiet ledger',
        body: '',
        changes: [{ op: 'amend_axiom', article_id: 'A4', text: secret }],
      }),
    );
    expect([error.status, error.code]).toEqual([403, 'BEDROCK_PROTECTED']);
    const p0 = (await request(url, '/prohibitions/p0')).body.refusals;
    expect(p0.at(-1)).toMatchObject({
      agent_id: bo().id,
      where: 'filing',
      op: 'amend_axiom',
      reasoning: expect.stringContaining('Bedrock'),
      payload_sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
    const tail = (await request(url, `/api/v1/ledger?from=${society.store.ledgerHead().seq}&limit=1`)).body.entries[0];
    expect(tail.event_type).toBe('p0_refusal');
    // The filer's signed request is proved by its digest; the body, which holds the refused text, is not republished.
    expect(tail.proof).toMatchObject({ body_sha256: p0.at(-1).payload_sha256 });
    expect(tail.proof.body).toBeUndefined();
    expect(JSON.stringify(tail)).not.toContain(secret);
    const charter_change = await refusal(
      bo().client.act('motion_propose', {
        title: 'Edit A1',
        body: '',
        changes: [{ op: 'amend_charter', article_id: 'A1', title: 'x', text: 'y' }],
      }),
    );
    expect(charter_change.code).toBe('BEDROCK_PROTECTED');
  });

  it('refuses Bedrock again at the enactment boundary, which validates for itself', async () => {
    // A society of its own: the state is arranged by hand, which no log could replay.
    const other = await startTestSociety({ genesis: { world_seed: 'world-tests' } });
    try {
      const other_founder = await founderClient(other);
      const member = await join(other, 'filer');
      const motion_id = await propose(member, 'Innocent at filing');
      // Arranged: a passed motion carrying a Bedrock change, as if filing had let one through.
      const arranged = other.engine.state.governance.motions[motion_id]!;
      arranged.changes = [{ op: 'change_founder', founder_pubkey: 'x'.repeat(43) }];
      arranged.status = 'passed';
      const error = await refusal(other_founder.signed('POST', '/enactment/apply', { motion_id }));
      expect([error.status, error.code]).toEqual([403, 'BEDROCK_PROTECTED']);
      expect(other.engine.state.governance.p0.at(-1)).toMatchObject({ where: 'apply', op: 'change_founder' });
      expect(arranged.status).toBe('passed');
    } finally {
      await other.destroy();
    }
  });
});

describe('refusals', () => {
  it('answers 403 FOUNDER_ONLY to any other key on the enactment routes', async () => {
    const motion_id = await propose(ada(), 'Not yours to apply');
    for (const path of ['/enactment/apply', '/enactment/dispatch']) {
      const error = await refusal(ada().client.signed('POST', path, path.endsWith('apply') ? { motion_id } : {}));
      expect([error.status, error.code]).toEqual([403, 'FOUNDER_ONLY']);
    }
  });

  it('refuses the seventh motion in a rolling day with 429 and Retry-After', async () => {
    const filer = await join(society, 'prolific');
    for (let i = 0; i < 6; i++) await propose(filer, `Motion ${i}`);
    const answer = await filer.client.solvePom('motion_propose');
    const seventh = await rawSigned(url, {
      path: '/api/v1/act',
      body: { act: 'motion_propose', ...answer, payload: { title: 'Seventh', body: '', changes: [] } },
      key: filer.key,
    });
    expect([seventh.status, seventh.body.error]).toEqual([429, 'RATE_LIMITED']);
    expect(Number(seventh.headers.get('retry-after'))).toBeGreaterThan(80_000);
    society.advance(86_400_000);
    await propose(filer, 'A day later');
  });

  it('names each other refusal: unknown motion, not the author, not a draft, cosponsor twice, not passed, invalid change, not a member', async () => {
    const motion_id = await propose(ada(), 'Refusal fodder');
    expect((await refusal(vote(ada(), 'M-9999-ffff', 'aye'))).status).toBe(404);
    const not_author = await refusal(openMotion(bo(), motion_id));
    expect([not_author.status, not_author.code]).toEqual([403, 'NOT_AUTHOR']);
    await bo().client.act('motion_cosponsor', { motion_id });
    const twice = await refusal(bo().client.act('motion_cosponsor', { motion_id }));
    expect([twice.status, twice.code]).toEqual([409, 'ALREADY_COSPONSORED']);
    await openMotion(ada(), motion_id);
    const reopen = await refusal(openMotion(ada(), motion_id));
    expect([reopen.status, reopen.code]).toEqual([409, 'MOTION_NOT_DRAFT']);
    const early = await refusal(founder.signed('POST', '/enactment/apply', { motion_id }));
    expect([early.status, early.code]).toEqual([409, 'MOTION_NOT_PASSED']);
    const invalid = await refusal(
      ada().client.act('motion_propose', {
        title: 'Bad param',
        body: '',
        changes: [{ op: 'set_param', name: 'gravity', value: 3 }],
      }),
    );
    expect([invalid.status, invalid.code]).toEqual([409, 'INVALID_CHANGE']);
    const range = await refusal(
      ada().client.act('motion_propose', {
        title: 'Bad value',
        body: '',
        changes: [{ op: 'set_param', name: 'block_reach', value: 0 }],
      }),
    );
    expect(range.code).toBe('INVALID_CHANGE');
    const outsider = await refusal(founder.act('motion_propose', { title: 'Founder files', body: '', changes: [] }));
    expect([outsider.status, outsider.code]).toEqual([402, 'MEMBERSHIP_REQUIRED']);
    expect((await refusal(vote(ada(), 'M-0001-zzzz', 'aye'))).status).toBe(422);
    const unknown = await refusal(vote(ada(), 'M-9999-abcd', 'aye'));
    expect([unknown.status, unknown.code]).toEqual([404, 'UNKNOWN_MOTION']);
    await closeWindow();
  });
});

describe("law, reputation and the society's reads", () => {
  it('keeps every charter version readable, with the axioms as Bedrock', async () => {
    const motion_id = await propose(di(), 'Article on roads', [
      { op: 'amend_charter', article_id: 'D4', title: 'Roads', text: 'Roads are for everyone.' },
    ]);
    await founder.signed('POST', '/enactment/resolve', { motion_id, reason: 'housekeeping' });
    const current = (await request(url, '/charter.json')).body;
    expect(current.version).toBe(2);
    expect(current.articles.find((a: any) => a.article_id === 'D4')).toMatchObject({ text: 'Roads are for everyone.' });
    const first = (await request(url, '/charter/v1.json')).body;
    expect(first.version).toBe(1);
    expect(first.articles.filter((a: any) => a.namespace === 'bedrock').map((a: any) => a.article_id)).toEqual([
      'A1',
      'A2',
      'A3',
      'A4',
      'A5',
      'A6',
      'A7',
      'A8',
      'A9',
      'A10',
    ]);
    expect((await request(url, '/charter/v9.json')).status).toBe(404);
    const markdown = await request(url, '/charter.md');
    expect(markdown.headers.get('content-type')).toContain('text/plain');
    expect(markdown.body).toContain('# Charter, version 2');
    expect((await request(url, '/prohibitions.json')).body.prohibitions[0].prohibition_id).toBe('P0');
    expect((await request(url, '/prohibitions.md')).body).toContain('**P0**');
    expect((await request(url, '/founder-conduct')).body.bedrock.will_not.length).toBeGreaterThan(0);
    expect((await request(url, '/api/v1/founder-conduct')).body).toEqual((await request(url, '/founder-conduct')).body);
  });

  it("serves reputation with per-signal breakdowns, the bulletin, the chronicle and its RSS, and the rail's four numbers", async () => {
    const profile = (await request(url, `/api/v1/reputation/${cy().id}`)).body;
    expect(profile.signals).toMatchObject({
      motions_filed: expect.any(Number),
      motions_passed: 1,
      votes_cast: expect.any(Number),
    });
    const board = (await request(url, '/api/v1/reputation')).body.leaderboard;
    expect(board[0].rank).toBe(1);
    expect(board.every((row: any, i: number) => i === 0 || board[i - 1].standing >= row.standing)).toBe(true);
    expect((await request(url, '/api/v1/reputation/ag_0000000000000000')).status).toBe(404);

    await ada().client.act('bulletin_post', { title: 'Hello', body: 'Meet at the ruins.' });
    expect((await request(url, '/api/v1/bulletin')).body.items[0]).toMatchObject({
      agent_id: ada().id,
      title: 'Hello',
      body: 'Meet at the ruins.',
    });

    const chronicle = (await request(url, '/api/v1/chronicle?limit=5')).body.items;
    expect(chronicle).toHaveLength(5);
    const older = (await request(url, `/api/v1/chronicle?before=${chronicle[4].chronicle_id}&limit=2`)).body.items;
    expect(older[0].chronicle_id).toBe(chronicle[4].chronicle_id - 1);
    const rss = await request(url, '/chronicle.rss');
    expect(rss.headers.get('content-type')).toContain('application/rss+xml');
    expect(rss.body).toMatch(/<rss version="2.0"/);
    expect(rss.body).toContain('<item>');

    const standing = (await request(url, '/api/v1/standing')).body;
    expect(Object.keys(standing)).toHaveLength(4);
    expect(standing.members).toBe(society.engine.state.agents.size - 1);
    expect(
      (await request(url, '/api/v1/motions?status=failed')).body.motions.every((m: any) => m.status === 'failed'),
    ).toBe(true);
  });

  it('replays the whole history to the same state, hash for hash', async () => {
    await society.engine.drain();
    expect(stateHash(recoverState(society.store, { use_snapshot: false }))).toBe(stateHash(society.engine.state));
  });
});
