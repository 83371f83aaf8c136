import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TesseraClient } from '../client/sdk.js';
import { founderClient, startTestSociety, type TestSociety } from './helpers/society.js';
import { request } from './helpers/signed.js';
import { findTile, join, look, refusal, standOn, worldOf, type Member } from './helpers/world.js';

let society: TestSociety;
let url: string;
let members: Member[];
let founder: TesseraClient;

beforeAll(async () => {
  society = await startTestSociety({
    genesis: { world_seed: 'world-tests', params: { voting_window_seconds: 60, ap_at_registration: 300 } },
  });
  url = society.url;
  members = [];
  for (const handle of ['ann', 'ben', 'cat']) members.push(await join(society, handle));
  founder = await founderClient(society);
});
afterAll(async () => society.destroy());
afterEach(() => expect(society.bugs).toEqual([]));

const ann = () => members[0]!;
const send = (member: Member, body: string) =>
  member.client.act<any>('aether_send', { body, scope: 'auto', route: 'global' });
const feed = async (query = '') => (await request(url, `/api/v1/aether/feed${query}`)).body;

/** Test arrangement: resources a member would otherwise dig for a long while. */
function grant(member: Member, resources: Record<string, number>) {
  Object.assign(worldOf(society).agents.get(member.id)!.inventory, resources);
}

describe('messages', () => {
  it("delivers a message under the commons rule at 0 AP, with the specification's fields", async () => {
    const before = await look(ann());
    const sent = await send(ann(), 'Hello, society.');
    expect(sent.result).toMatchObject({ message_id: expect.any(Number), route: 'global' });
    expect((await look(ann())).ap).toBe(before.ap);
    const [message] = (await feed()).messages;
    expect(Object.keys(message).sort()).toEqual([
      'agent_id',
      'at',
      'body',
      'body_html',
      'message_id',
      'route',
      'scope',
      'x',
      'y',
    ]);
    expect(message).toMatchObject({
      message_id: sent.result.message_id,
      agent_id: ann().id,
      x: before.position.x,
      y: before.position.y,
      scope: 'auto',
      route: 'global',
      body: 'Hello, society.',
    });
  });

  it('renders bodies inert: markup escaped, only http(s) links become anchors', async () => {
    await send(
      ann(),
      '<script>alert(1)</script> <img src=x onerror="alert(2)"> javascript:alert(3) https://example.org/?a=1&b="2"',
    );
    const [message] = (await feed()).messages;
    expect(message.body_html).not.toMatch(/<script|<img|onerror="/);
    expect(message.body_html).toContain('&#60;script&#62;');
    expect(message.body_html).toMatch(
      /^[^<]*(<a href="https:\/\/example\.org\/\?a=1&#38;b=&#34;2&#34;" rel="nofollow noopener noreferrer ugc" target="_blank">[^<]*<\/a>)?$/,
    );
    expect(message.body_html).not.toContain('href="javascript');
  });

  it('reads the feed newest first and, with since_id, only what came after', async () => {
    const first = (await send(ann(), 'one')).result.message_id;
    await send(ann(), 'two');
    await send(ann(), 'three');
    const after = await feed(`?since_id=${first}`);
    expect(after.messages.map((m: any) => m.body)).toEqual(['three', 'two']);
    expect(after.newest_id).toBe(first + 2);
    expect((await feed(`?since_id=${first + 2}`)).messages).toEqual([]);
    expect((await request(url, '/api/v1/aether/feed?limit=1000')).status).toBe(422);
  });

  it('limits each sender per minute with 429, and the length of a message', async () => {
    society.advance(61_000);
    const sender = members[1]!;
    for (let i = 0; i < 10; i++) await send(sender, `burst ${i}`);
    const limited = await refusal(send(sender, 'one too many'));
    expect([limited.status, limited.code]).toEqual([429, 'RATE_LIMITED']);
    society.advance(61_000);
    const long = await refusal(send(sender, 'x'.repeat(1001)));
    expect([long.status, long.code]).toEqual([409, 'MESSAGE_TOO_LONG']);
  });
});

describe('the publication delay', () => {
  let delayed: TestSociety;
  beforeAll(async () => {
    delayed = await startTestSociety({ genesis: { world_seed: 'world-tests', params: { aether_delay_seconds: 30 } } });
  });
  afterAll(async () => delayed.destroy());

  it('hides a message until its publication moment, then shows it', async () => {
    const member = await join(delayed, 'patient');
    const sent = await member.client.act<any>('aether_send', { body: 'later', scope: 'auto', route: 'global' });
    const read = async () => (await request(delayed.url, '/api/v1/aether/feed')).body.messages;
    expect(await read()).toEqual([]);
    expect((await request(delayed.url, '/api/v1/aether/feed?since_id=0')).body.messages).toEqual([]);
    delayed.advance(29_000);
    expect(await read()).toEqual([]);
    delayed.advance(1_000);
    expect((await read()).map((m: any) => m.message_id)).toEqual([sent.result.message_id]);
  });
});

describe('the relay network and the range rule', () => {
  it('refuses a link over 30 tiles without spending silicon', async () => {
    const builder = members[2]!;
    const world = worldOf(society);
    const a = findTile(
      world,
      (x, y, biome) => biome === 'plains' && world.terrain.biome[y * 2048 + x + 35] !== 5,
      900,
      900,
    );
    grant(builder, { iron: 40, silicon: 20 + 200 });
    standOn(society, builder, a.x, a.y);
    const first = (await builder.client.act<any>('aether_build_mast', {})).result;
    standOn(society, builder, a.x + 35, a.y);
    const far = (await builder.client.act<any>('aether_build_mast', {})).result;
    standOn(society, builder, a.x, a.y);
    const silicon = (await look(builder)).inventory.silicon;
    const error = await refusal(
      builder.client.act('aether_link', { from_relay_id: first.relay_id, to_relay_id: far.relay_id }),
    );
    expect([error.status, error.code, (error.body as any).span]).toEqual([409, 'SPAN_TOO_LONG', 35]);
    expect((await look(builder)).inventory.silicon).toBe(silicon);
    const unknown = await refusal(
      builder.client.act('aether_link', { from_relay_id: first.relay_id, to_relay_id: 999 }),
    );
    expect([unknown.status, unknown.code]).toEqual([404, 'UNKNOWN_RELAY']);
    const broke = await refusal(builder.client.act('aether_build_hub', { relay_id: first.relay_id }));
    expect([broke.status, broke.code]).toEqual([409, 'CANNOT_AFFORD']);
  });

  it('switches to the range rule by an enacted motion: NO_ROUTE without masts, delivery along a linked route to the Hub', async () => {
    society.advance(61_000);
    const motion_id = (
      await ann().client.act<any>('motion_propose', {
        title: 'Range rule',
        body: '',
        changes: [{ op: 'set_param', name: 'aether_commons', value: false }],
      })
    ).result.motion_id;
    await ann().client.act('motion_open', { motion_id });
    for (const member of members) await member.client.act('vote_cast', { motion_id, choice: 'aye' });
    society.advance(61_000);
    await society.engine.pulse();
    await founder.signed('POST', '/enactment/apply', { motion_id });
    expect((await request(url, '/api/v1/world/params')).body.aether_commons).toBe(false);

    const sender = ann();
    const world = worldOf(society);
    const spot = findTile(
      world,
      (x, y, biome) =>
        biome === 'plains' &&
        world.terrain.biome[y * 2048 + x + 20] !== 5 &&
        !society.engine.state.aether.masts.some((m) => Math.abs(m.x - x) < 80 && Math.abs(m.y - y) < 80),
      1300,
      1100,
    );
    standOn(society, sender, spot.x, spot.y);
    const lonely = await refusal(send(sender, 'anyone there?'));
    expect([lonely.status, lonely.code]).toEqual([409, 'NO_ROUTE']);

    grant(sender, { iron: 40, silicon: 20 + 100, relic: 1, obsidian: 30 });
    const near = (await sender.client.act<any>('aether_build_mast', {})).result;
    standOn(society, sender, spot.x + 20, spot.y);
    const hub_mast = (await sender.client.act<any>('aether_build_mast', {})).result;
    const hub = await sender.client.act<any>('aether_build_hub', { relay_id: hub_mast.relay_id });
    expect(hub.result.relay_id).toBe(hub_mast.relay_id);
    standOn(society, sender, spot.x, spot.y);
    expect((await refusal(send(sender, 'not linked yet'))).code).toBe('NO_ROUTE');
    const link = await sender.client.act<any>('aether_link', {
      from_relay_id: near.relay_id,
      to_relay_id: hub_mast.relay_id,
    });
    expect(link.result).toMatchObject({ span: 20, silicon_spent: 100 });
    const delivered = await send(sender, 'over the relays');
    expect(delivered.result.route).toBe('relay');
    expect((await feed()).messages[0]).toMatchObject({ body: 'over the relays', route: 'relay' });
  });
});
