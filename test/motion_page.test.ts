import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './helpers/signed.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { join, type Member } from './helpers/world.js';
import { relativeTime } from '../render/time.js';
import { outcomeWords, plural } from '../render/words.js';

describe('the words the pages share', () => {
  it('counts days as dates: a closing two dates on is "in 2 days" even under 48 hours ahead', () => {
    const closes = Date.parse('2026-11-28T23:49:00Z');
    expect(relativeTime(closes, Date.parse('2026-11-26T23:55:00Z'))).toBe('in 2 days');
    expect(relativeTime(closes, Date.parse('2026-11-27T00:10:00Z'))).toBe('tomorrow');
    expect(relativeTime(closes, Date.parse('2026-11-28T20:49:00Z'))).toBe('in 3 hours');
    expect(relativeTime(Date.parse('2026-11-25T01:00:00Z'), Date.parse('2026-11-26T23:00:00Z'))).toBe('yesterday');
  });

  it('says one of a thing in the singular, and a code in words with the code kept', () => {
    expect([plural(1, 'vote'), plural(2, 'vote'), plural(1, 'biome'), plural(0, 'link')]).toEqual([
      '1 vote',
      '2 votes',
      '1 biome',
      '0 links',
    ]);
    expect(outcomeWords('QUORUM_NOT_MET')).toEqual({ words: 'too few members voted', code: 'QUORUM_NOT_MET' });
    expect(outcomeWords('resolved by founder action: tidy').code).toBeNull();
  });
});

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

  const propose = async (title: string, changes: unknown[] = []) =>
    (
      await members[0]!.client.act<{ motion_id: string }>('motion_propose', {
        title,
        body: 'First paragraph.\n\nSecond paragraph.',
        changes,
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
    expect(html).toMatch(
      /\(<bdi>[a-z ]+<\/bdi> <code class="outcome-code" title="the engine's code">(PASSED|REJECTED|QUORUM_NOT_MET)<\/code>\)/,
    );
    const twin = (await request(society.url, `/motions/${motion_id}.md`)).body as string;
    expect(twin).toMatch(/\((too few members voted|a quorum voted[a-z ]+), code [A-Z_]+\)/);
  });

  it('heads the page with the title, escaped, the id beside it, and shows the changes as a list', async () => {
    const hostile = '<img src=x onerror="window.pwned=1"> Roads';
    const changes = [{ op: 'enable_module', module_id: 'library', description: 'Books <b>for all</b>' }];
    const motion_id = await propose(hostile, changes);
    const html = await pageOf(motion_id);
    expect(html).toContain('<h1><bdi>&#60;img src=x onerror=&#34;window.pwned=1&#34;&#62; Roads</bdi></h1>');
    expect(html).toContain(`<title>&#60;img src=x`);
    expect(html).not.toContain('<img src=x');
    expect(html).toContain(`<p class="byline">Motion <code>${motion_id}</code>, filed by`);
    expect(html).toContain(
      '<ol class="changes"><li><strong>enable module</strong><ul class="data"><li><span class="key">module id</span>: <a href="/modules/library"><bdi>library</bdi></a></li><li><span class="key">description</span>: <bdi>Books &#60;b&#62;for all&#60;/b&#62;</bdi></li></ul></li></ol>',
    );
    expect(html).not.toContain('&#34;op&#34;');
    const twin = (await request(society.url, `/motions/${motion_id}.md`)).body as string;
    expect(twin).toContain('# \\<img src=x onerror="window.pwned=1"\\> Roads');
    expect(twin).toContain('1. enable module\n   - module id: library\n   - description: Books \\<b\\>for all\\</b\\>');
    expect(twin).not.toContain('```json');
  });
});
