import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MOTION_FRAGMENTS, type MotionFragment } from '../render/pages/motion_page.js';
import { request } from './helpers/signed.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { join, type Member } from './helpers/world.js';

const HOSTILE_TITLE = '<img src=x onerror="window.pwned=1">Roads';
const ESCAPED_TITLE = '&#60;img src=x onerror=&#34;window.pwned=1&#34;&#62;Roads';
const BODY = 'Pave the road to the Hub.';

/** What only that part of an open motion's page shows. */
const HTML_MARKS: Record<MotionFragment, string> = {
  status: 'Status: <strong>open</strong>',
  tally: '<h2>The tally</h2>',
  body: `<div class="motion-body"><p><bdi>${BODY}</bdi></p></div>`,
  changes: 'No changes: the motion is a statement.',
  roll: 'voted <strong>aye</strong>',
};

/** What only that part of an open motion's Markdown twin shows. */
const MARKDOWN_MARKS: Record<MotionFragment, string> = {
  status: 'Status: open. Author: ',
  tally: 'Tally: aye 1, nay 0',
  body: `> ${BODY}`,
  changes: '## Changes',
  roll: '## The roll',
};

/** The motion page's `fragment` query: one part of the motion, or the whole with an id per part. */
describe("the motion page's fragment", () => {
  let society: TestSociety;
  let ada: Member;
  let bob: Member;
  let open_motion: string;
  let draft: string;

  const propose = async (title: string) =>
    (await ada.client.act<{ motion_id: string }>('motion_propose', { title, body: BODY, changes: [] })).result
      .motion_id;
  const html = async (path: string) => {
    const answer = await request(society.url, path);
    expect(answer.status, path).toBe(200);
    return answer.body as string;
  };

  beforeAll(async () => {
    society = await startTestSociety({ genesis: { world_seed: 'world-tests' } });
    ada = await join(society, 'ada');
    bob = await join(society, 'bob');
    for (const member of [ada, bob]) await member.client.act('bulletin_post', { title: 'Hello', body: 'Here.' });
    society.advance(1000);
    open_motion = await propose(HOSTILE_TITLE);
    await bob.client.act('motion_cosponsor', { motion_id: open_motion });
    await ada.client.act('motion_open', { motion_id: open_motion });
    await bob.client.act('vote_cast', { motion_id: open_motion, choice: 'aye' });
    draft = await propose('A draft');
  }, 60_000);
  afterAll(() => society.destroy());

  it('gives each part of the whole page an id, in page order, and an empty fragment is the whole page', async () => {
    const whole = await html(`/motions/${open_motion}`);
    const ids = [...whole.matchAll(/<section id="(\w+)">/g)].map(([, id]) => id);
    expect(ids).toEqual([...MOTION_FRAGMENTS]);
    for (const mark of Object.values(HTML_MARKS)) expect(whole).toContain(mark);
    expect(whole).not.toContain('Part of motion');
    const main = (page: string) => page.match(/<main>.*<\/main>/s)?.[0];
    expect(main(await html(`/motions/${open_motion}?fragment=`))).toBe(main(whole));
  });

  it('shows each part alone under the title, with a line naming it and linking the whole motion', async () => {
    for (const fragment of MOTION_FRAGMENTS) {
      const part = await html(`/motions/${open_motion}?fragment=${fragment}`);
      expect(part, fragment).toContain(`<h1><bdi>${ESCAPED_TITLE}</bdi></h1>`);
      expect(part, fragment).toMatch(
        new RegExp(
          `Part of motion <code>${open_motion}</code>: [^<]+\\. <a href="/motions/${open_motion}">The whole motion</a>`,
        ),
      );
      expect(part, fragment).toContain(`<section id="${fragment}">`);
      expect(part, fragment).toContain(HTML_MARKS[fragment]);
      for (const other of MOTION_FRAGMENTS.filter((name) => name !== fragment))
        expect(part, `${fragment} without ${other}`).not.toContain(HTML_MARKS[other]);
      expect(part, fragment).not.toContain('<img src=x');
    }
    expect(await html(`/motions/${open_motion}?fragment=status`)).toContain('Cosponsored by');
  });

  it("says a draft has no tally, as a page (200), and a draft's whole page has no tally section", async () => {
    const tally = await html(`/motions/${draft}?fragment=tally`);
    expect(tally).toContain('This motion is a draft, so it has no tally');
    expect(tally).not.toContain('<section id="tally">');
    expect(await html(`/motions/${draft}`)).not.toContain('<section id="tally">');
  });

  it('refuses a part it does not know with the 422 page naming the parts, the value escaped', async () => {
    for (const [bad, shown] of [
      ['tallies', '(tallies)'],
      ['<script>x</script>', '(&#60;script&#62;x&#60;/script&#62;)'],
    ]) {
      const answer = await request(society.url, `/motions/${open_motion}?fragment=${encodeURIComponent(bad!)}`);
      expect(answer.status, bad).toBe(422);
      expect(answer.headers.get('content-type'), bad).toBe('text/html; charset=utf-8');
      expect(answer.body, bad).toContain(
        `The query value fragment ${shown} must be one of status, tally, body, changes, roll.`,
      );
      expect(answer.body, bad).not.toContain('<script>x');
    }
    const twin = await request(society.url, `/motions/${open_motion}.md?fragment=tallies`);
    expect([twin.status, twin.headers.get('content-type')]).toEqual([422, 'text/plain; charset=utf-8']);
  });

  it('shows the same part in the Markdown twin, and the whole twin for an empty fragment', async () => {
    const whole = await html(`/motions/${open_motion}.md`);
    expect(await html(`/motions/${open_motion}.md?fragment=`)).toBe(whole);
    for (const fragment of MOTION_FRAGMENTS) {
      const part = await html(`/motions/${open_motion}.md?fragment=${fragment}`);
      expect(part, fragment).toContain('# \\<img src=x onerror="window.pwned=1"\\>Roads');
      expect(part, fragment).toContain(`Part of motion ${open_motion}: `);
      expect(part, fragment).toContain(`The whole motion: /motions/${open_motion}.md`);
      expect(part, fragment).toContain(MARKDOWN_MARKS[fragment]);
      for (const other of MOTION_FRAGMENTS.filter((name) => name !== fragment))
        expect(part, `${fragment} without ${other}`).not.toContain(MARKDOWN_MARKS[other]);
    }
    expect(await html(`/motions/${draft}.md?fragment=tally`)).toContain('This motion is a draft, so it has no tally');
  });
});
