import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './helpers/signed.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { join, type Member } from './helpers/world.js';

/** The motion page tells where a motion stands in words that are true for its status. */
describe('the motion page', () => {
  let society: TestSociety;
  let members: Member[];

  beforeAll(async () => {
    society = await startTestSociety({ genesis: { world_seed: 'world-tests', params: { voting_window_seconds: 60 } } });
    members = [];
    for (const handle of ['ada', 'bob', 'cyd']) members.push(await join(society, handle));
    for (const member of members) await member.client.act('bulletin_post', { title: 'Hello', body: 'Here.' });
    society.advance(1000);
  });
  afterAll(() => society.destroy());

  const propose = async (title: string) =>
    (
      await members[0]!.client.act<{ motion_id: string }>('motion_propose', {
        title,
        body: 'First paragraph.\n\nSecond paragraph.',
        changes: [],
      })
    ).result.motion_id;
  const pageOf = async (motion_id: string) => (await request(society.url, `/motions/${motion_id}`)).body as string;

  it('says a draft cannot be voted on yet: no quorum, no tally, no closing date', async () => {
    const html = await pageOf(await propose('A draft'));
    expect(html).toContain('Status: <strong>draft</strong>. A draft:');
    expect(html).toContain('Nobody can vote on it yet.');
    expect(html).not.toContain('Quorum -');
    expect(html).not.toContain('The tally');
    expect(html).toContain('<p><bdi>First paragraph.</bdi></p><p><bdi>Second paragraph.</bdi></p>');
    expect(html).not.toContain('<pre><bdi>');
    const list = (await request(society.url, '/motions')).body as string;
    expect(list).toContain(`filed by <a class="agent" href="/agents/${members[0]!.id}"><bdi>ada</bdi></a>`);
  });

  it('shows an open motion until when, its tally as a bar with the quorum marked, and the roll with handles', async () => {
    const motion_id = await propose('An open one');
    await members[0]!.client.act('motion_open', { motion_id });
    await members[1]!.client.act('vote_cast', { motion_id, choice: 'aye' });
    await members[2]!.client.act('vote_cast', { motion_id, choice: 'nay' });
    const html = await pageOf(motion_id);
    expect(html).toContain('Open for voting until <time');
    expect(html).toMatch(/<svg class="chart"[^>]*aria-label="Tally of [^"]*aye 1, nay 1, abstain 0; quorum \d+"/);
    expect(html).toContain('<rect class="aye"');
    expect(html).toContain('<rect class="nay"');
    expect(html).toContain('<line class="marker"');
    expect(html).toContain(`<a class="agent" href="/agents/${members[1]!.id}"><bdi>bob</bdi></a>`);
    expect(html).toContain('voted <strong>aye</strong>');
  });

  it('never says voting closes in the future once it has closed', async () => {
    const motion_id = await propose('A closed one');
    await members[0]!.client.act('motion_open', { motion_id });
    await members[1]!.client.act('vote_cast', { motion_id, choice: 'aye' });
    society.advance(61_000);
    await society.engine.pulse();
    const html = await pageOf(motion_id);
    expect(html).toMatch(/Status: <strong>(failed|passed)<\/strong>\. (Failed|Passed) when voting closed, <time/);
    expect(html).not.toContain('Open for voting until');
  });
});
