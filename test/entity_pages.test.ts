import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { request } from './helpers/signed.js';
import { founderClient, startTestSociety, type TestSociety } from './helpers/society.js';
import { join, pacing, type Member } from './helpers/world.js';

const HOSTILE_TITLE = '<img src=x onerror="window.pwned=1">Mill';

/** The pages of one thing (an agent, an entry, a Dispatch, the charter) link every id they show and read as words. */
describe('entity pages', () => {
  let society: TestSociety;
  let ada: Member;
  let motion_id: string;
  let founder_id: string;

  beforeAll(async () => {
    society = await startTestSociety({ genesis: { world_seed: 'world-tests' } });
    ada = await join(society, 'ada');
    const founder = await founderClient(society);
    founder_id = society.engine.state.founder_agent_id;
    const step = pacing(society, ada);
    await ada.client.act('world_move', { path: [step()] });
    motion_id = (
      await ada.client.act<{ motion_id: string }>('motion_propose', {
        title: HOSTILE_TITLE,
        body: 'b',
        changes: [{ op: 'enable_module', module_id: 'library', description: 'Books.' }],
      })
    ).result.motion_id;
    await founder.signed('POST', '/enactment/resolve', { motion_id, reason: 'housekeeping' });
    await founder.signed('POST', '/enactment/dispatch', {});
    await ada.client.act('bulletin_post', { title: '', body: 'No title here.' });
    society.engine.state.world.agents.get(ada.id)!.inventory.stone = 3;
  }, 60_000);
  afterAll(() => society.destroy());

  const html = async (path: string) => {
    const page = await request(society.url, path);
    expect(page.status, path).toBe(200);
    return page.body as string;
  };

  it("shows an agent's role, place, standing in words, holdings and recent activity, its titles escaped", async () => {
    const page = await html(`/agents/${ada.id}`);
    expect(page).toContain('<h1><bdi>Agent ada</bdi></h1>');
    expect(page).not.toContain('<span class="badge">Founder</span>');
    expect(page).toMatch(/see it on the map/);
    const thumbnail = /<img class="thumb" src="([^"]+)"/.exec(page)![1]!.replaceAll('&amp;', '&');
    const image = await fetch(`${society.url}${thumbnail}`);
    expect([image.status, image.headers.get('content-type')]).toEqual([200, 'image/png']);
    expect(page).toMatch(/href="\/world\?x=\d+&#38;y=\d+&#38;z=4"/);
    expect(page).toContain('<li>3 stone</li>');
    expect(page).toMatch(/\d+ (exploration bonus|exploration bonuses)/);
    expect(page).not.toContain('tiles explored');
    expect(page).toMatch(/(1 biome first reached|[02-9]\d* biomes first reached)/);
    expect(page).toContain('1 motion filed');
    expect(page).toContain('<ol class="activity">');
    expect(page).toContain(
      `<a href="/motions/${motion_id}"><bdi>&#60;img src=x onerror=&#34;window.pwned=1&#34;&#62;Mill</bdi></a>`,
    );
    expect(page).not.toContain('<img src=x');
    expect(page).toContain('pinned a bulletin post, untitled');
    expect(await html(`/agents/${founder_id}`)).toContain('<span class="badge">Founder</span>');
    const twin = (await request(society.url, `/agents/${ada.id}.md`)).body as string;
    expect(twin).toContain(`ada (${ada.id}), registered`);
    expect(twin).toContain('Carries 3 stone.');
    expect(twin).toContain('## Recent activity');
    expect(twin).toContain(`(${motion_id})`);
    expect((await request(society.url, `/agents/${founder_id}.md`)).body).toContain(', the Founder');
  });

  it('links the motion a Dispatch names, and each Dispatch has its own anchor', async () => {
    const page = await html('/dispatches');
    expect(page).toContain(`Resolved <a href="/motions/${motion_id}"><code class="motion-id">${motion_id}</code></a>`);
    expect(page).toContain('<h2 id="dispatch-1">Dispatch 1</h2>');
    const ledger = await html('/ledger?type=dispatch_published');
    expect(ledger).toContain('<a href="/dispatches?before_id=2#dispatch-1">Dispatch 1</a>');
  });

  it('shows an entry as a list: tiles linked to the map, ids to their pages, the previous hash to its entry', async () => {
    const moved = /<a class="seq" href="\/ledger\/(\d+)">/.exec(await html('/ledger?type=agent_moved'))![1]!;
    const page = await html(`/ledger/${moved}`);
    expect(page).toMatch(
      /<li><span class="key">to<\/span>: <a href="\/world\?x=\d+&#38;y=\d+&#38;z=4">\(\d+, \d+\)<\/a>/,
    );
    expect(page).toContain(`<a href="/ledger/${Number(moved) - 1}"><code>`);
    const fields = page.slice(page.indexOf('<h2>Fields</h2>'), page.indexOf('<h2>Its place in the chain</h2>'));
    expect(fields).not.toContain('{&#34;x&#34;');
    const twin = (await request(society.url, `/ledger/${moved}.md`)).body as string;
    expect(twin).toMatch(/\n- to: \(\d+, \d+\) \/world\?x=\d+&y=\d+\n/);
    expect(twin).toContain(`(entry ${Number(moved) - 1}: /ledger/${Number(moved) - 1}.md)`);
    const filed = /<a class="seq" href="\/ledger\/(\d+)">/.exec(await html('/ledger?type=motion_filed'))![1]!;
    expect(await html(`/ledger/${filed}`)).toContain(
      `<span class="key">motion id</span>: <a href="/motions/${motion_id}"><code class="motion-id">`,
    );
  });

  it('anchors and links each Aether message by its number', async () => {
    await ada.client.act('aether_send', { body: 'hello', scope: 'auto', route: 'global' });
    society.advance(3_600_000);
    const page = await html('/aether');
    expect(page).toMatch(/<article id="message-(\d+)"><p><a href="#message-\1"><code>#\1<\/code><\/a>/);
  });

  it('never says an entry follows a signed request when the one before is unsigned', async () => {
    const second = await html('/ledger/2');
    expect(second).not.toContain('follows the signed request');
    expect(second).toContain('the engine wrote it');
  });

  it('leads from the charter and the society to the prohibitions and the module pages', async () => {
    const charter = await html('/charter');
    expect(charter).toContain('<a href="/prohibitions">The prohibitions</a>');
    expect(charter).toContain('<a href="/modules/library"><bdi>library</bdi></a>');
    expect(await html('/society')).toContain('<a href="/prohibitions">the prohibitions</a>');
    expect(await html('/society')).toContain('<strong><bdi>untitled</bdi></strong>');
    expect(await html('/')).toContain('<a href="/prohibitions">the prohibitions</a>');
  });

  it('lists motions by their titles, each id beside linked, and the outcome in words with its code', async () => {
    const list = await html('/motions');
    expect(list).toContain(`<a href="/motions/${motion_id}"><strong><bdi>&#60;img`);
    const motion = await html(`/motions/${motion_id}`);
    expect(motion).toContain('<h1><bdi>&#60;img src=x onerror=&#34;window.pwned=1&#34;&#62;Mill</bdi></h1>');
    expect(motion).toContain('the Founder resolved it: housekeeping');
  });
});
