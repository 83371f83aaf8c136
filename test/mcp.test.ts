import { writeFileSync } from 'node:fs';
import { join as pathJoin } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateKey } from '../client/keys.js';
import { SIGNED_EXTRA_TOOLS } from '../client/tools.js';
import { BRIDGE_STREAM_TOOLS, LEDGER_RESOURCE, ownEventsResource } from '../client/mcp_events.js';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { readToolsForRules } from '../api/read_tools.js';
import { CATALOGUE } from '../engine/catalogue.js';
import { startTestSociety, type TestSociety } from './helpers/society.js';
import { request } from './helpers/signed.js';
import { findTile, join, standOn, stepInto, worldOf } from './helpers/world.js';

let society: TestSociety;
let client: Client;
let agent_id: string;

const text = (result: any) => JSON.parse(result.content[0].text);
const call = async (name: string, args: Record<string, unknown> = {}) => {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) throw new Error(`${name} refused: ${(result.content as any)[0].text}`);
  return text(result);
};

beforeAll(async () => {
  society = await startTestSociety({ genesis: { world_seed: 'world-tests', params: { voting_window_seconds: 60 } } });
  const key = await generateKey();
  agent_id = key.agent_id;
  const key_file = pathJoin(society.data_dir, 'agent.key.json');
  writeFileSync(key_file, JSON.stringify(key));
  client = new Client({ name: 'tessera-test', version: '1.0.0' });
  await client.connect(
    new StdioClientTransport({
      command: process.execPath,
      args: ['dist/client/cli.js', 'mcp', '--key', key_file, '--url', society.url],
    }),
  );
}, 30_000);
afterAll(async () => {
  await client?.close();
  await society?.destroy();
});

describe('the stdio MCP server (official SDK client)', () => {
  it("lists exactly the catalogue's acts, the signed identity calls and the public reads, each with an object schema", async () => {
    const { tools } = await client.listTools();
    const expected = [
      ...CATALOGUE.filter((act) => act.via_act).map((act) => act.name),
      ...SIGNED_EXTRA_TOOLS,
      ...readToolsForRules().map((tool) => tool.name),
      ...BRIDGE_STREAM_TOOLS,
    ];
    expect(tools.map((tool) => tool.name).sort()).toEqual(expected.sort());
    for (const name of [
      'society_status',
      'key_backup_register',
      'bulletin_post',
      'motion_propose',
      'motion_read',
      'motion_list',
      'vote_cast',
      'membership_checkout',
      'membership_status',
      'billing_portal',
      'reputation_get',
      'reputation_leaderboard',
      'aether_send',
      'aether_build_hub',
      'world_look',
      'world_map',
      'world_column',
      'world_move',
      'world_dig',
      'world_gather',
      'world_place_block',
      'world_break_block',
      'world_give',
    ]) {
      expect(
        tools.map((tool) => tool.name),
        name,
      ).toContain(name);
    }
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.description?.length, tool.name).toBeGreaterThan(10);
    }
  });

  it('answers a signed tool before register with UNKNOWN_AGENT and a hint to register first', async () => {
    for (const name of ['world_look', 'membership_status']) {
      const result = await client.callTool({ name, arguments: {} });
      expect(result.isError, name).toBe(true);
      expect(text(result), name).toEqual({
        error: 'UNKNOWN_AGENT',
        message: expect.any(String),
        http_status: 404,
        hint: expect.stringMatching(/call the register tool with a handle \(3 to 32 characters of a-z, 0-9, _ and -\)/),
      });
    }
    expect((await client.getInstructions())!).toContain('call `register` with a handle');
  });

  it('plays the world and takes part in governance: register, look, move, dig, give, propose, vote, send', async () => {
    expect((await call('register', { handle: 'mcp-agent' })).agent_id).toBe(agent_id);
    const seen = await call('world_look', {});
    expect(seen.ap).toBeGreaterThan(0);
    const world = worldOf(society);
    const spot = findTile(
      world,
      (x, y, biome) =>
        biome === 'plains' &&
        stepInto(world, x, y, 'plains') !== undefined &&
        world.surface[y * 2048 + x] === world.surface[y * 2048 + x + 1],
    );
    const mine = { id: agent_id } as any;
    standOn(society, mine, spot.x, spot.y);
    const moved = await call('world_move', { path: [stepInto(world, spot.x, spot.y, 'plains')] });
    expect(moved.ap_spent).toBe(1);
    standOn(society, mine, spot.x, spot.y);
    const dug = await call('world_dig', { x: spot.x, y: spot.y });
    expect(dug.yield).toBe('dirt');
    const friend = await join(society, 'mcp-friend');
    standOn(society, friend, spot.x + 1, spot.y);
    expect((await call('world_give', { to: friend.id, resource: 'dirt', amount: 1 })).amount).toBe(1);
    const filed = await call('motion_propose', {
      title: 'Filed through MCP',
      changes: [{ op: 'enable_module', module_id: 'mcp_module' }],
    });
    await call('motion_open', { motion_id: filed.motion_id });
    const voted = await call('vote_cast', { motion_id: filed.motion_id, choice: 'aye' });
    expect(voted.tally.aye).toBe(1);
    const sent = await call('aether_send', { body: 'hello from a tool' });
    expect(sent.route).toBe('global');
    const entries = (await request(society.url, '/api/v1/ledger?limit=1000')).body.entries
      .filter((entry: any) => entry.actor === agent_id)
      .map((entry: any) => entry.event_type);
    for (const event of [
      'agent_registered',
      'agent_moved',
      'terrain_dug',
      'resource_sent',
      'motion_filed',
      'motion_opened',
      'vote_cast',
      'aether_sent',
    ])
      expect(entries, event).toContain(event);
    expect((await call('motion_read', { motion_id: filed.motion_id })).roll[0].agent_id).toBe(agent_id);
  });

  it('offers the ledger and its own events as resources, and tells a subscriber of each new entry', async () => {
    const { resources } = await client.listResources();
    expect(resources.map((resource) => resource.uri).sort()).toEqual(
      [LEDGER_RESOURCE, ownEventsResource(agent_id)].sort(),
    );
    const updated: string[] = [];
    client.setNotificationHandler(ResourceUpdatedNotificationSchema, (notification) => {
      updated.push(notification.params.uri);
    });
    await client.subscribeResource({ uri: ownEventsResource(agent_id) });
    const { bulletin_id } = await call('bulletin_post', {
      title: 'Heard by my subscription',
      body: 'Posted by a tool.',
    });
    await waitUntil(() => updated.includes(ownEventsResource(agent_id)));
    const read = await client.readResource({ uri: ownEventsResource(agent_id) });
    const entries = JSON.parse((read.contents[0] as { text: string }).text).entries as {
      event_type: string;
      data: { bulletin_id: number };
    }[];
    expect(
      entries.some((entry) => entry.event_type === 'bulletin_posted' && entry.data.bulletin_id === bulletin_id),
    ).toBe(true);
    const recent = JSON.parse(
      ((await client.readResource({ uri: LEDGER_RESOURCE })).contents[0] as { text: string }).text,
    );
    expect(recent.entries.at(-1).seq).toBe(society.store.ledgerHead().seq);
  });

  it('waits for events with a tool, for clients without subscriptions, leaving no gap between calls', async () => {
    const head = society.store.ledgerHead().seq;
    const friend = await join(society, 'waited-for');
    const waited = await call('wait_for_events', { types: ['agent_registered'], after_seq: head, timeout_seconds: 5 });
    expect(waited.entries.map((entry: { data: { agent_id: string } }) => entry.data.agent_id)).toEqual([friend.id]);
    const none = await call('wait_for_events', { after_seq: society.store.ledgerHead().seq, timeout_seconds: 1 });
    expect([none.entries, none.timed_out, none.next_after_seq]).toEqual([[], true, society.store.ledgerHead().seq]);
  });

  it('returns every refusal as {error, message, http_status, ...details}, each field with one meaning', async () => {
    const result = await client.callTool({ name: 'world_dig', arguments: { x: 5000, y: 5000 } });
    expect(result.isError).toBe(true);
    const out_of_bounds = { error: 'OUT_OF_BOUNDS', message: expect.any(String), http_status: 404, x: 5000, y: 5000 };
    expect(text(result)).toEqual(out_of_bounds);
    const bad = await client.callTool({ name: 'vote_cast', arguments: { motion_id: 'nope', choice: 'aye' } });
    expect([bad.isError, text(bad).error, text(bad).http_status]).toEqual([true, 'VALIDATION_FAILED', 422]);
    expect(text(bad).message).toMatch(/^The arguments do not match the tool's schema: .*motion_id/);
    expect(text(bad).detail[0].loc).toContain('motion_id');
    // The motion's own state is motion_status: status would read as the HTTP status.
    const changes = [{ op: 'enable_module', module_id: 'draft_module' }];
    const { motion_id } = await call('motion_propose', { title: 'Still a draft', changes });
    const closed = await client.callTool({ name: 'vote_cast', arguments: { motion_id, choice: 'aye' } });
    const message = 'draft, not open for voting';
    const motion_closed = { error: 'MOTION_CLOSED', message, http_status: 409, motion_id, motion_status: 'draft' };
    expect(text(closed)).toEqual(motion_closed);
    // UNKNOWN_AGENT for a missing recipient is not about this key: no hint to register.
    const to = 'ag_0000000000000000';
    const nobody = await client.callTool({ name: 'world_give', arguments: { to, resource: 'dirt', amount: 1 } });
    const unknown_recipient = { error: 'UNKNOWN_AGENT', message: expect.stringContaining(to), http_status: 404, to };
    expect(text(nobody)).toEqual(unknown_recipient);
    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} });
    const no_such_tool = { error: 'UNKNOWN_TOOL', message: "There is no tool named 'no_such_tool'." };
    expect([unknown.isError, text(unknown)]).toEqual([true, no_such_tool]);
  });
});

describe("the service's HTTP MCP endpoint", () => {
  it('serves the read tools, no key needed, and no write tool', async () => {
    const http = new Client({ name: 'tessera-http-test', version: '1.0.0' });
    await http.connect(new StreamableHTTPClientTransport(new URL(`${society.url}/mcp`)));
    const names = (await http.listTools()).tools.map((tool) => tool.name);
    expect(names.sort()).toEqual(
      readToolsForRules()
        .map((tool) => tool.name)
        .sort(),
    );
    expect(names).not.toContain('world_move');
    const status = await http.callTool({ name: 'society_status', arguments: {} });
    expect(text(status).society).toBe('Tessera');
    const tile = await http.callTool({ name: 'world_tile', arguments: { x: 0, y: 0 } });
    expect(text(tile)).toEqual({ x: 0, y: 0, revealed: false });
    await http.close();
  });
});

async function waitUntil(done: () => boolean, timeout_ms = 10_000): Promise<void> {
  const until = Date.now() + timeout_ms;
  while (!done()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
